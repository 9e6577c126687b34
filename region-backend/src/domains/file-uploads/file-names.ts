/**
 * The stable URL of an uploaded picture: `{region base}/iris/files/{sha256 of the bytes}/{name}`, the name a
 * relative path whose segments are URL-encoded. Same bytes and same name give the same URL (the record key).
 */
import { FILE_NAME_CHARS, LIMITS, charLength } from '@iris/shared';
import { RecordFieldError } from '../data-sets/record-rules.js';


/**
 * A client's file name as a relative path: `\` read as `/`, empty, `.` and `..` segments dropped (a name never
 * climbs out of its folder), at most FILE_NAME_CHARS characters. Throws RecordFieldError.
 */
export function fileName(raw: string | undefined): string {
  const text = (raw ?? '').trim();
  if (charLength(text) > FILE_NAME_CHARS * 4) throw new RecordFieldError(`name is longer than ${FILE_NAME_CHARS} characters`);
  if ([...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw new RecordFieldError('name holds control characters');
  const name = text
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s && s !== '.' && s !== '..')
    .join('/');
  if (!name) throw new RecordFieldError('the file has no name (give the part a file name, or a name field)');
  if (charLength(name) > FILE_NAME_CHARS) throw new RecordFieldError(`name is longer than ${FILE_NAME_CHARS} characters`);
  return name;
}

/** The record's URL for a picture; throws RecordFieldError when it would pass the record URL's length. */
export function fileUrl(base: string, sha256: string, name: string): string {
  const path = name.split('/').map(encodeURIComponent).join('/');
  const url = `${base.replace(/\/+$/, '')}/iris/files/${sha256}/${path}`;
  if (charLength(url) > LIMITS.urlChars) throw new RecordFieldError(`the file's URL would be longer than ${LIMITS.urlChars} characters: use a shorter name`);
  return url;
}
