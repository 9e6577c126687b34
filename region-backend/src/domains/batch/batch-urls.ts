/**
 * The `urls` file of prepare: one URL per line, UTF-8, optionally starting with a byte-order mark, LF or
 * CRLF line ends, empty lines ignored. Lines are numbered from 0 in the file as uploaded (empty lines
 * count), and the same numbers appear in `urls_duplicated`, `urls_verify_failed` and the result lines.
 */
import { ApiError, charLength, LIMITS } from '@iris/shared';

export interface BatchLine {
  /** 0-based line index in the uploaded file. */
  line: number;
  url: string;
}

/** Entries of each error map shown at most (a file of 100,000 bad lines would otherwise echo itself). */
export const MAX_REPORTED = 1000;

/** Iris: the specification leaves 400006 unused; it answers a file with more URLs than a task may hold. */
export const TOO_MANY_URLS = [400, 400006] as const;

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // fatal: invalid sequences throw; the default ignoreBOM=false drops a leading byte-order mark.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('batchUrlsNotUtf8', 'urls must be UTF-8 text');
  }
}

export function isValidBatchUrl(text: string): boolean {
  if (charLength(text) > LIMITS.urlChars || /\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Parses and checks the file; throws the batch error for each problem (400003, 400004, 400005, 400006). */
export function parseBatchUrls(bytes: Uint8Array, maxUrls: number): BatchLine[] {
  const text = decodeUtf8(bytes);
  const lines: BatchLine[] = [];
  text.split(/\r\n|\n|\r/).forEach((raw, line) => {
    const url = raw.trim();
    if (url) lines.push({ line, url });
  });
  if (!lines.length) throw new ApiError('batchUrlsEmpty', 'urls holds no URL');
  if (lines.length > maxUrls) throw new ApiError(TOO_MANY_URLS, `urls holds ${lines.length} URLs; a task takes at most ${maxUrls}`);

  const verifyFailed: Record<string, string> = {};
  const seen = new Map<string, number[]>();
  let invalid = 0;
  for (const { line, url } of lines) {
    if (!isValidBatchUrl(url)) {
      if (invalid++ < MAX_REPORTED) verifyFailed[String(line)] = url;
      continue;
    }
    const at = seen.get(url);
    if (at) at.push(line);
    else seen.set(url, [line]);
  }
  const duplicated: Record<string, number[]> = {};
  let duplicates = 0;
  for (const [url, at] of seen) {
    if (at.length > 1 && duplicates++ < MAX_REPORTED) duplicated[url] = at;
  }
  if (invalid || duplicates) {
    const parts = [invalid ? `${invalid} invalid` : '', duplicates ? `${duplicates} duplicated` : ''].filter(Boolean).join(' and ');
    const capped = invalid > MAX_REPORTED || duplicates > MAX_REPORTED ? ` (the first ${MAX_REPORTED} of each are listed)` : '';
    throw new ApiError('batchUrlsInvalid', `urls has ${parts} URLs${capped}; lines are numbered from 0`, {
      urls_duplicated: duplicated,
      urls_verify_failed: verifyFailed,
    });
  }
  if (seen.size < LIMITS.batchMinDistinctUrls) {
    throw new ApiError('batchUrlsInvalid', `a task needs at least ${LIMITS.batchMinDistinctUrls} different URLs`, { urls_duplicated: {}, urls_verify_failed: {} });
  }
  return lines;
}
