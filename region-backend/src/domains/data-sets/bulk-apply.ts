/**
 * Applying a bulk file to a set: rows are validated as they stream in and written in batches inside one
 * transaction that holds the set's lock, so a file is applied completely or (on the first bad line) not
 * at all.
 */
import { Readable } from 'node:stream';
import type pg from 'pg';
import { ApiError, type Upload } from '@iris/shared';
import { BulkFileError, csvRows, type CsvRow } from './bulk-rows.js';
import { deleteRecordsByUrl, upsertRecords, withLockedSet, type LockedSet, type RecordInput } from './record.repo.js';
import { RecordFieldError, recordUrl } from './record-rules.js';
import { assertStoredBytes, type RecordQuotas } from './record-quotas.js';
import type { BulkWriteTurns } from './bulk-write-turns.js';
import type { SetKind } from './set.repo.js';
import { openUploadStream } from './upload-stream.js';

const BATCH_SIZE = 500;

/** The bulk file of a request: a file part (from memory or streamed from its temp file), or (some clients) the file's text sent as a plain field. */
export async function openBulkSource(file: Upload): Promise<Readable> {
  if (typeof file !== 'string') return openUploadStream(file.data ?? file.path!);
  return Readable.from([Buffer.from(file, 'utf8')]);
}

/** Maps parsed rows to values; a field error becomes a file error naming the line. Null results are skipped. */
export async function* mapRows<In extends { line: number }, Out>(rows: AsyncIterable<In>, fn: (row: In, index: number) => Out | null): AsyncGenerator<Out> {
  let index = 0;
  for await (const row of rows) {
    let value: Out | null;
    try {
      value = fn(row, index++);
    } catch (err) {
      if (err instanceof RecordFieldError) throw new BulkFileError(row.line, err.message);
      throw err;
    }
    if (value !== null) yield value;
  }
}

/** What applying a bulk file needs: the database, and the turns of accounts that yield (bulk-write-turns.ts). */
export interface BulkDeps {
  pool: pg.Pool;
  bulkWrites?: BulkWriteTurns;
}

/**
 * Streams `rows` into the set in batches of 500 inside one locked transaction, once the account's turn has
 * come (no lock is held while it waits). Returns null when the set does not exist; throws 400/5001 naming
 * the line when the file is malformed (nothing is changed then).
 */
export async function applyBulkFile<T>(
  deps: BulkDeps,
  scope: BulkScope,
  rows: AsyncIterable<T>,
  applyBatch: (tx: LockedSet, batch: T[]) => Promise<void>,
): Promise<{ rows: number } | null> {
  const release = await deps.bulkWrites?.enter(String(scope.accountId));
  let count = 0;
  try {
    const done = await withLockedSet(deps.pool, scope.setId, { accountId: scope.accountId, kind: scope.kind, touch: true, quotas: scope.quotas }, async (tx) => {
      let batch: T[] = [];
      for await (const row of rows) {
        batch.push(row);
        count++;
        if (batch.length >= BATCH_SIZE) {
          await applyBatch(tx, batch);
          batch = [];
        }
      }
      if (batch.length) await applyBatch(tx, batch);
      return count;
    });
    return done ? { rows: done.value } : null;
  } catch (err) {
    if (err instanceof BulkFileError) throw new ApiError('invalidData', `invalid file: ${err.message}`);
    throw err;
  } finally {
    release?.(count);
  }
}

export interface BulkScope {
  accountId: number;
  setId: string;
  kind: SetKind;
  /** Record quotas checked before the file's records commit (adds). */
  quotas?: RecordQuotas | undefined;
}

/**
 * Adds (or updates) the records of a CSV file, all or nothing; new URLs are queued for download.
 * False when the set does not exist.
 */
export async function addRecordsFromFile(
  deps: BulkDeps & { downloads: { enqueue(setId: string): Promise<void> } },
  scope: BulkScope,
  file: Upload,
  toRecord: (row: CsvRow, index: number) => RecordInput | null,
): Promise<boolean> {
  await assertStoredBytes(deps.pool, scope.accountId, scope.quotas);
  const source = await openBulkSource(file);
  let pending = 0;
  let done;
  try {
    done = await applyBulkFile(deps, scope, mapRows(csvRows(source), toRecord), async (tx, batch) => {
      pending += (await upsertRecords(tx, scope.accountId, batch)).pending;
    });
  } finally {
    source.destroy();
  }
  if (pending) await deps.downloads.enqueue(scope.setId);
  return done !== null;
}

/**
 * The URL of a delete row: its first column (further columns, such as a training label, are ignored). A
 * header-like first row (`url,…`) is refused like any first column that is not a URL, as the specification says.
 */
export function urlToDelete(row: CsvRow): string | null {
  return recordUrl(row.cells[0]);
}

/**
 * Deletes the records whose URLs the first column of a CSV file lists, all or nothing. False when the
 * set does not exist.
 */
export async function deleteRecordsFromFile(deps: BulkDeps, scope: BulkScope, file: Upload): Promise<boolean> {
  const source = await openBulkSource(file);
  try {
    const done = await applyBulkFile(deps, scope, mapRows(csvRows(source), urlToDelete), async (tx, batch) => {
      await deleteRecordsByUrl(tx, batch);
    });
    return done !== null;
  } finally {
    source.destroy();
  }
}

/** 400/5001 for a single record's bad field. */
export function fieldError(err: unknown): never {
  if (err instanceof RecordFieldError) throw new ApiError('invalidData', err.message);
  throw err;
}
