/**
 * Streaming readers for bulk files: CSV (RFC 4180 quotes, BOM, CRLF or LF) and JSON lines. Rows are
 * yielded as they are parsed with their line number, so a caller can refuse a file naming the line.
 */
import type { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { BULK_LIMITS } from './bulk-limits.js';
import { UploadFormatError } from './upload-stream.js';
import { JsonTooDeepError, parseBoundedJson } from '../../http/input-limits.js';

export interface CsvRow {
  line: number;
  cells: string[];
}

export interface JsonRow {
  line: number;
  value: Record<string, unknown>;
}

/** A malformed bulk file: the whole file is refused (400/5001) and nothing is changed. */
export class BulkFileError extends Error {
  constructor(
    readonly line: number | null,
    reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = 'BulkFileError';
  }
}

export async function* csvRows(source: Readable): AsyncGenerator<CsvRow> {
  const parser = parse({
    bom: true,
    info: true,
    trim: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    // A record (or an unclosed quote) longer than this fails the file instead of buffering without end.
    max_record_size: BULK_LIMITS.maxRecordChars,
  });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  try {
    let rows = 0;
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (++rows > BULK_LIMITS.maxRows) throw new BulkFileError(item.info.lines, `a file may hold at most ${BULK_LIMITS.maxRows} rows`);
      yield { line: item.info.lines, cells: item.record };
    }
  } catch (err) {
    throw toBulkError(err);
  } finally {
    source.unpipe(parser);
    source.destroy();
  }
}

/**
 * Lines of a byte stream split on LF (a CR before it is trimmed with the rest of the white space), each at
 * most `maxBytes`: a longer line fails the file as soon as it passes the bound, whatever its total length.
 */
export async function* boundedLines(source: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let parts: Buffer[] = [];
  let size = 0;
  let line = 0;
  const finish = () => {
    const text = decoder.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    parts = [];
    size = 0;
    return { line: ++line, text };
  };
  for await (const raw of source) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a)) {
      if (size + nl > maxBytes) throw new BulkFileError(line + 1, `a line may be at most ${maxBytes} bytes`);
      parts.push(chunk.subarray(0, nl));
      size += nl;
      yield finish();
      chunk = chunk.subarray(nl + 1);
    }
    size += chunk.length;
    if (size > maxBytes) throw new BulkFileError(line + 1, `a line may be at most ${maxBytes} bytes`);
    if (chunk.length) parts.push(chunk);
  }
  if (size > 0) yield finish();
}

export async function* jsonLines(source: Readable): AsyncGenerator<JsonRow> {
  try {
    for await (const { line, text: raw } of boundedLines(source as AsyncIterable<Buffer>, BULK_LIMITS.maxLineBytes)) {
      // Blank lines count too: a file of millions of empty lines is refused as fast as one of records.
      if (line > BULK_LIMITS.maxRows) throw new BulkFileError(line, `a file may hold at most ${BULK_LIMITS.maxRows} lines`);
      const text = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (!text) continue;
      let value: unknown;
      try {
        value = parseBoundedJson(text);
      } catch (err) {
        throw new BulkFileError(line, err instanceof JsonTooDeepError ? err.message : 'not valid JSON');
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BulkFileError(line, 'each line must be a JSON object');
      yield { line, value: value as Record<string, unknown> };
    }
  } catch (err) {
    throw toBulkError(err);
  } finally {
    source.destroy();
  }
}

function toBulkError(err: unknown): Error {
  if (err instanceof BulkFileError) return err;
  if (err instanceof CsvError) return new BulkFileError((err as CsvError & { lines?: number }).lines ?? null, `invalid CSV: ${err.message}`);
  if (err instanceof UploadFormatError) return new BulkFileError(null, err.message);
  return err as Error;
}
