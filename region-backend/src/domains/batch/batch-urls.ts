/**
 * The `urls` file of prepare: one URL per line, UTF-8, optionally starting with a byte-order mark, LF or
 * CRLF line ends, empty lines ignored. Lines are numbered from 0 in the file as uploaded (empty lines
 * count), and the same numbers appear in `urls_duplicated`, `urls_verify_failed` and the result lines.
 * The file is scanned once, line by line, and the scan stops at the first URL past the task's cap: a file of
 * millions of lines costs one pass over its bytes and never an array of its lines.
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

/** Code units String.prototype.trim removes (WhiteSpace and LineTerminator of ECMAScript). */
function isTrimmed(code: number): boolean {
  return (
    code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/**
 * The non-empty lines of a text fed in pieces (trimmed, with their 0-based numbers; lines end at CRLF, LF or
 * CR), at most `max`: `full` turns true at the first line past `max`, and the scan stops there. No string is
 * made for an empty line.
 */
export class LineScanner {
  readonly lines: BatchLine[] = [];
  full = false;
  private line = 0;
  private blank = true;
  /** The current line's text from earlier pieces, while it is not blank. */
  private pending = '';
  private afterCr = false;

  constructor(private readonly max: number) {}

  push(text: string): void {
    let start = 0;
    let i = 0;
    if (this.afterCr && text.charCodeAt(0) === 0x0a) start = i = 1; // a CRLF split across pieces
    if (text.length) this.afterCr = false;
    for (; i < text.length && !this.full; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x0a || code === 0x0d) {
        this.endLine(this.blank ? '' : text.slice(start, i));
        if (code === 0x0d) {
          if (i + 1 === text.length) this.afterCr = true;
          else if (text.charCodeAt(i + 1) === 0x0a) i++;
        }
        start = i + 1;
      } else if (this.blank && !isTrimmed(code)) {
        this.blank = false;
      }
    }
    if (!this.blank && !this.full) this.pending += text.slice(start);
  }

  /** Ends the last line (one without a line end). */
  end(): void {
    if (!this.full) this.endLine('');
  }

  private endLine(tail: string): void {
    if (!this.blank) {
      if (this.lines.length === this.max) this.full = true;
      else this.lines.push({ line: this.line, url: (this.pending + tail).trim() });
    }
    this.line++;
    this.blank = true;
    this.pending = '';
  }
}

/** Decoded and scanned per piece, the event loop given back between pieces: a 40 MB file is a second of CPU. */
const PIECE_BYTES = 256 * 1024;

/**
 * The file's non-empty lines, or null past `max`; throws 400003 for bytes that are not UTF-8. The file comes
 * whole or as a stream of chunks (an upload's temp file is read as it is scanned, never held whole).
 */
export async function scanBatchLines(source: Uint8Array | AsyncIterable<Uint8Array>, max: number): Promise<BatchLine[] | null> {
  // fatal: invalid sequences throw; the default ignoreBOM=false drops a leading byte-order mark.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const scanner = new LineScanner(max);
  const chunks = source instanceof Uint8Array ? [source] : source;
  let first = true;
  try {
    for await (const chunk of chunks) {
      for (let at = 0; at < chunk.length && !scanner.full; at += PIECE_BYTES) {
        if (!first) await new Promise<void>((resolve) => setImmediate(resolve));
        first = false;
        scanner.push(decoder.decode(chunk.subarray(at, at + PIECE_BYTES), { stream: true }));
      }
      if (scanner.full) break;
    }
    if (!scanner.full) {
      scanner.push(decoder.decode());
      scanner.end();
    }
  } catch (err) {
    if (err instanceof TypeError) throw new ApiError('batchUrlsNotUtf8', 'urls must be UTF-8 text');
    throw err;
  }
  return scanner.full ? null : scanner.lines;
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
export async function parseBatchUrls(source: Uint8Array | AsyncIterable<Uint8Array>, maxUrls: number): Promise<BatchLine[]> {
  const lines = await scanBatchLines(source, maxUrls);
  if (!lines) throw new ApiError(TOO_MANY_URLS, `urls holds more than ${maxUrls} URLs; a task takes at most ${maxUrls}`);
  if (!lines.length) throw new ApiError('batchUrlsEmpty', 'urls holds no URL');

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
