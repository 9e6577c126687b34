/**
 * SQL for data-set records. Every change that takes a new `change_seq` runs inside `withLockedSet`, which
 * holds the set's row lock until commit: within one set, change_seq order is then commit order, so a
 * reader that remembers the last seq it saw never misses a change committed later.
 */
import type pg from 'pg';
import { holdCachedBlobs, rememberUrlBlob } from '../blob-gc/blob-refs.repo.js';
import { assertRecordQuotas, type RecordQuotas } from './record-quotas.js';
import type { Queryable, SetKind } from './set.repo.js';

/** A transaction holding the lock of one set (proof for the functions that change its records). */
export interface LockedSet {
  readonly client: pg.PoolClient;
  readonly setId: string;
  /** Records inserted so far in this transaction (the record quotas are checked before commit when > 0). */
  added: number;
}

export interface RecordInput {
  url: string;
  meta: string;
  tags: string[];
  label: string;
  productId: string;
  price: string;
  keywords: string;
}

export function recordInput(fields: Partial<RecordInput> & { url: string }): RecordInput {
  return { meta: '', tags: [], label: '', productId: '', price: '', keywords: '', ...fields };
}

export interface StoredBlob {
  blobKey: string;
  width: number;
  height: number;
  /** Size of the stored image (counted against the account's stored-bytes quota). */
  bytes?: number;
}

/**
 * Runs `fn` in a transaction holding the set's row lock. `scope` limits the set to an account and kind
 * (request paths); `touch` also marks the set modified; with `quotas` (and `accountId`), a transaction that
 * inserted records commits only within the account's record quotas. Returns null (nothing run) when the set
 * is missing.
 */
export async function withLockedSet<T>(
  pool: pg.Pool,
  setId: string,
  options: { accountId?: number; kind?: SetKind; touch?: boolean; quotas?: RecordQuotas | undefined },
  fn: (tx: LockedSet) => Promise<T>,
): Promise<{ value: T } | null> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const where = 'id = $1 AND ($2::bigint IS NULL OR account_id = $2) AND ($3::text IS NULL OR kind = $3)';
    const locked = await client.query(
      options.touch ? `UPDATE data_sets SET modified_at = now() WHERE ${where}` : `SELECT 1 FROM data_sets WHERE ${where} FOR UPDATE`,
      [setId, options.accountId ?? null, options.kind ?? null],
    );
    if (!locked.rowCount) {
      await client.query('ROLLBACK');
      return null;
    }
    const tx: LockedSet = { client, setId, added: 0 };
    const value = await fn(tx);
    if (tx.added > 0 && options.quotas && options.accountId !== undefined) await assertRecordQuotas(client, options.accountId, setId, options.quotas);
    await client.query('COMMIT');
    return { value };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Deduplicates by record key (product id + url), the last occurrence winning, as the file order says. */
function lastByKey(rows: RecordInput[]): RecordInput[] {
  const byKey = new Map<string, RecordInput>();
  for (const row of rows) {
    const key = `${row.productId}\n${row.url}`;
    byKey.delete(key);
    byKey.set(key, row);
  }
  return [...byKey.values()];
}

function asJson(rows: RecordInput[]): string {
  return JSON.stringify(
    rows.map((r) => ({ url: r.url, meta: r.meta, tags: r.tags, label: r.label, product_id: r.productId, price: r.price, keywords: r.keywords })),
  );
}

/**
 * Inserts new records (already downloaded when the account's URL cache has the URL) and overwrites the
 * attributes of existing ones without downloading again. Returns how many rows were inserted pending.
 */
export async function upsertRecords(tx: LockedSet, accountId: number, rows: RecordInput[]): Promise<{ inserted: number; pending: number }> {
  if (!rows.length) return { inserted: 0, pending: 0 };
  const unique = lastByKey(rows);
  // Cached images copied into records stay stored until this transaction commits (blob collection waits).
  await holdCachedBlobs(tx.client, accountId, unique.map((r) => r.url));
  const result = await tx.client.query<{ inserted: boolean; status: string }>(
    `INSERT INTO data_set_records AS r (set_id, url, product_id, meta, tags, label, price, keywords, status, blob_key, width, height)
     SELECT $1, v.url, v.product_id, v.meta, v.tags, v.label, v.price, v.keywords,
            CASE WHEN b.blob_key IS NULL THEN 'pending' ELSE 'downloaded' END, b.blob_key, b.width, b.height
     FROM jsonb_to_recordset($3::jsonb) AS v(url text, meta text, tags text[], label text, product_id text, price text, keywords text)
     LEFT JOIN (url_blobs b JOIN stored_blobs sb ON sb.blob_key = b.blob_key AND sb.state = 'live') ON b.account_id = $2 AND b.url = v.url
     ON CONFLICT (set_id, record_key) WHERE deleted_at IS NULL
     DO UPDATE SET meta = EXCLUDED.meta, tags = EXCLUDED.tags, label = EXCLUDED.label, price = EXCLUDED.price, keywords = EXCLUDED.keywords
     RETURNING (xmax = 0) AS inserted, status`,
    [tx.setId, accountId, asJson(unique)],
  );
  let inserted = 0;
  let pending = 0;
  for (const row of result.rows) {
    if (row.inserted) inserted++;
    if (row.inserted && row.status === 'pending') pending++;
  }
  tx.added += inserted;
  return { inserted, pending };
}

/** Product attributes are per product: every image record of each given product takes the new values. */
export async function updateProductAttributes(tx: LockedSet, rows: RecordInput[]): Promise<void> {
  if (!rows.length) return;
  const byProduct = new Map(rows.map((r) => [r.productId, r]));
  await tx.client.query(
    `UPDATE data_set_records r SET meta = v.meta, tags = v.tags, price = v.price, keywords = v.keywords
     FROM jsonb_to_recordset($2::jsonb) AS v(product_id text, meta text, tags text[], price text, keywords text)
     WHERE r.set_id = $1 AND r.deleted_at IS NULL AND r.product_id = v.product_id
       AND (r.meta, r.tags, r.price, r.keywords) IS DISTINCT FROM (v.meta, v.tags, v.price, v.keywords)`,
    [tx.setId, asJson([...byProduct.values()])],
  );
}

/**
 * Inserts or updates one record that is already downloaded (add one image), and the account's URL cache
 * entry with it; throws BlobGoneError when the image was collected meanwhile (download it again).
 */
export async function upsertDownloadedRecord(tx: LockedSet, accountId: number, row: RecordInput, blob: StoredBlob): Promise<void> {
  tx.added++;
  await rememberUrlBlob(tx.client, accountId, row.url, blob);
  await tx.client.query(
    `INSERT INTO data_set_records (set_id, url, product_id, meta, tags, label, price, keywords, status, blob_key, width, height, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'downloaded', $9, $10, $11, 1)
     ON CONFLICT (set_id, record_key) WHERE deleted_at IS NULL
     DO UPDATE SET meta = EXCLUDED.meta, tags = EXCLUDED.tags, label = EXCLUDED.label, price = EXCLUDED.price, keywords = EXCLUDED.keywords`,
    [tx.setId, row.url, row.productId, row.meta, row.tags, row.label, row.price, row.keywords, blob.blobKey, blob.width, blob.height],
  );
}

export async function findLiveRecord(db: Queryable, setId: string, productId: string, url: string): Promise<{ id: number; status: string } | null> {
  const result = await db.query<{ id: number; status: string }>(
    `SELECT id, status FROM data_set_records WHERE set_id = $1 AND product_id = $2 AND url = $3 AND deleted_at IS NULL`,
    [setId, productId, url],
  );
  return result.rows[0] ?? null;
}

/** Soft-deletes live records by URL; returns how many were deleted. */
export async function deleteRecordsByUrl(tx: LockedSet, urls: string[]): Promise<number> {
  if (!urls.length) return 0;
  const result = await tx.client.query(
    `UPDATE data_set_records SET deleted_at = now(), lease_until = NULL
     WHERE set_id = $1 AND deleted_at IS NULL AND url = ANY($2::text[])`,
    [tx.setId, urls],
  );
  return result.rowCount ?? 0;
}

export async function deleteRecordsByProduct(tx: LockedSet, productIds: string[]): Promise<number> {
  if (!productIds.length) return 0;
  const result = await tx.client.query(
    `UPDATE data_set_records SET deleted_at = now(), lease_until = NULL
     WHERE set_id = $1 AND deleted_at IS NULL AND product_id = ANY($2::text[])`,
    [tx.setId, productIds],
  );
  return result.rowCount ?? 0;
}

export async function deleteAllRecords(tx: LockedSet): Promise<number> {
  const result = await tx.client.query(
    `UPDATE data_set_records SET deleted_at = now(), lease_until = NULL WHERE set_id = $1 AND deleted_at IS NULL`,
    [tx.setId],
  );
  return result.rowCount ?? 0;
}
