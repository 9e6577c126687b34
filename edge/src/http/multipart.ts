/**
 * Text fields of a multipart/form-data body, found by scanning the bytes (file contents are skipped, never
 * copied or decoded), read by the backend's rules (@fastify/busboy with its Dicer part splitter), so that
 * both sides see the same fields (docs/edge.md, "One reading of a request"):
 * - parts are delimited by `\r\n--boundary` (the first one may start the body); headers end at `\r\n\r\n`;
 * - a part without `Content-Disposition: form-data` is skipped, as is one whose name has a line break;
 * - a part is a file when its disposition has a `filename` or its type is exactly `application/octet-stream`;
 * - text is decoded with the part's charset (UTF-8 by default), a byte-order mark is kept;
 * - at most 256 text fields, each cut at 1 MB (the backend's limits; it refuses more parts);
 * - at most 8 MB of text fields in all, or the call is refused (413) before more of them are held: they are
 *   signed, so each is held as text and in the signing string.
 * The fields the edge checks travel in the signed context, so any remaining difference is refused by the
 * backend instead of being acted on.
 */
import { ApiError } from '@iris/shared';
import { decodeBinary, firstParam, parseParams, type Param } from './header-params.js';

/** The backend's MAX_BODY_PARTS (region-backend/src/http/input-limits.ts): more parts are refused there. */
export const MAX_FIELDS = 256;
export const MAX_FIELD_BYTES = 1024 * 1024;
export const MAX_HEADER_BYTES = 80 * 1024;
export const MAX_TEXT_FIELDS_BYTES = 8 * 1024 * 1024;

export function textFieldsTooLarge(): ApiError {
  return new ApiError('payloadTooLarge', `the text fields of a multipart body must be at most ${MAX_TEXT_FIELDS_BYTES} bytes in all`);
}
const MAX_HEADER_PAIRS = 2000;
const encoder = new TextEncoder();

export function binaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

/** The boundary of a multipart content type, as busboy finds it (first `boundary` parameter). */
export function boundaryOf(contentType: string): string | undefined {
  return firstParam(parseParams(contentType), /^boundary$/i);
}

export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  let i = haystack.indexOf(first, from);
  while (i !== -1 && i + needle.length <= haystack.length) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
    i = haystack.indexOf(first, i + 1);
  }
  return -1;
}

/** Dicer's HeaderParser: lower-case names, folded lines, first malformed line ends the block. */
export function parseHeaderBlock(block: string): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  let name: string | undefined;
  let lineStart = 0;
  let pairs = 0;
  while (lineStart < block.length) {
    let lineEnd = block.indexOf('\r\n', lineStart);
    if (lineEnd === -1) lineEnd = block.length;
    if (lineEnd === lineStart) {
      lineStart = lineEnd + 2;
      continue;
    }
    const line = block.slice(lineStart, lineEnd);
    if (line.includes('\r') || line.includes('\n')) break;
    if ((line[0] === '\t' || line[0] === ' ') && name) {
      const values = headers.get(name)!;
      values[values.length - 1] += line;
      lineStart = lineEnd + 2;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) break;
    name = line.slice(0, colon).toLowerCase();
    let valueStart = colon + 1;
    if (line[valueStart] === ' ' || line[valueStart] === '\t') ++valueStart;
    const values = headers.get(name) ?? [];
    values.push(line.slice(valueStart));
    headers.set(name, values);
    if (++pairs === MAX_HEADER_PAIRS) break;
    lineStart = lineEnd + 2;
  }
  return headers;
}

/** busboy indexes parameters as `[key, value]`, and strings by character: kept as is. */
const key = (param: Param) => param[0] ?? '';
const value = (param: Param) => param[1];

export interface PartInfo {
  name: string;
  isFile: boolean;
  charset: string;
}

export function partInfo(headers: Map<string, string[]>): PartInfo | undefined {
  let contentType: string | undefined;
  let charset: string | undefined;
  const typeHeader = headers.get('content-type')?.[0];
  if (typeHeader) {
    if (!typeHeader.includes(';') && !typeHeader.includes(' ') && !typeHeader.includes('\t')) {
      contentType = typeHeader.toLowerCase();
    } else {
      const parsed = parseParams(typeHeader);
      if (parsed[0]) {
        contentType = (typeof parsed[0] === 'string' ? parsed[0] : parsed[0][0]).toLowerCase();
        for (const param of parsed) {
          if (/^charset$/i.test(key(param))) {
            charset = (value(param) ?? '').toLowerCase();
            break;
          }
        }
      }
    }
  }
  const disposition = headers.get('content-disposition')?.[0];
  if (disposition === undefined) return undefined;
  const parsed = parseParams(disposition);
  if (typeof parsed[0] !== 'string' || !/^form-data$/i.test(parsed[0])) return undefined;
  let name: string | undefined;
  let filename: string | undefined;
  for (const param of parsed) {
    if (/^name$/i.test(key(param))) {
      name = value(param);
      if (name !== undefined && /[\r\n]/.test(name)) return undefined;
    } else if (/^filename$/i.test(key(param))) {
      filename = value(param);
      if (filename !== undefined && /[\r\n]/.test(filename)) return undefined;
    }
  }
  // A nameless field reaches the backend as "undefined"; the edge reads nothing from it.
  if (name === undefined) return { name: '', isFile: true, charset: 'utf8' };
  return { name, isFile: (contentType ?? 'text/plain') === 'application/octet-stream' || filename !== undefined, charset: charset ?? 'utf8' };
}

/** `[name, value]` of every non-file part, in body order. Malformed input yields the parts found so far. */
export function multipartTextFields(body: Uint8Array, boundary: string): [string, string][] {
  const fields: [string, string][] = [];
  let textBytes = 0;
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const headerEnd = encoder.encode('\r\n\r\n');
  // Dicer searches "\r\n--boundary" in CRLF + body: the first delimiter may open the body.
  let pos: number;
  if (indexOfBytes(body.subarray(0, delimiter.length - 2), delimiter.subarray(2), 0) === 0) pos = delimiter.length - 2;
  else {
    const first = indexOfBytes(body, delimiter, 0);
    if (first === -1) return fields;
    pos = first + delimiter.length;
  }
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing delimiter
    const next = indexOfBytes(body, delimiter, pos);
    if (next === -1) break; // the part never ends: busboy fails the body
    const end = indexOfBytes(body.subarray(0, next), headerEnd, pos);
    if (end !== -1) {
      const block = binaryString(body.subarray(pos, Math.min(end, pos + MAX_HEADER_BYTES)));
      const info = partInfo(parseHeaderBlock(block));
      if (info && !info.isFile) {
        if (fields.length === MAX_FIELDS) break;
        const bytes = body.subarray(end + 4, Math.min(next, end + 4 + MAX_FIELD_BYTES));
        textBytes += bytes.byteLength;
        if (textBytes > MAX_TEXT_FIELDS_BYTES) throw textFieldsTooLarge();
        fields.push([info.name, decodeBinary(binaryString(bytes), info.charset)]);
      }
    }
    pos = next + delimiter.length;
  }
  return fields;
}
