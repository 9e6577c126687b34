/**
 * Streaming readers for bulk files: CSV (RFC 4180 quotes, BOM, CRLF or LF) and JSON lines. Rows are
 * yielded as they are parsed with their line number, so a caller can refuse a file naming the line.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { UploadFormatError } from './upload-stream.js';

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

const HEADER_NAMES = new Set(['url', 'image_url', 'urls']);

/** A first row such as `url,meta,tags` or `url,label` is a header, not a record. */
export function isHeaderRow(row: CsvRow, index: number): boolean {
  return index === 0 && HEADER_NAMES.has((row.cells[0] ?? '').trim().toLowerCase());
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
  });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { line: item.info.lines, cells: item.record };
    }
  } catch (err) {
    throw toBulkError(err);
  } finally {
    source.unpipe(parser);
    source.destroy();
  }
}

export async function* jsonLines(source: Readable): AsyncGenerator<JsonRow> {
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const raw of lines) {
      line++;
      const text = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (!text) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new BulkFileError(line, 'not valid JSON');
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BulkFileError(line, 'each line must be a JSON object');
      yield { line, value: value as Record<string, unknown> };
    }
  } catch (err) {
    throw toBulkError(err);
  } finally {
    lines.close();
    source.destroy();
  }
}

function toBulkError(err: unknown): Error {
  if (err instanceof BulkFileError) return err;
  if (err instanceof CsvError) return new BulkFileError((err as CsvError & { lines?: number }).lines ?? null, `invalid CSV: ${err.message}`);
  if (err instanceof UploadFormatError) return new BulkFileError(null, err.message);
  return err as Error;
}
