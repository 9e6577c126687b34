/**
 * SQL of the blob reference protocol (migration 070_blob_gc.sql):
 * - a writer stores a blob's file while holding the blob's advisory lock, after registering the blob in
 *   `stored_blobs` in the same transaction (so the file exists before the row commits, and a collector
 *   unlinking the file holds the same lock);
 * - a statement that stores a reference (record, URL cache) first takes the blob's row FOR SHARE and requires
 *   it 'live': the collector, which takes the row FOR UPDATE before checking references, then either sees the
 *   reference or has already marked the blob 'deleting' (and the reference is refused: BlobGoneError).
 */
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** A stored image as the URL cache keeps it. */
export interface CachedBlob {
  blobKey: string;
  width: number;
  height: number;
  bytes?: number | undefined;
}

const BLOB_LOCK = 7_301_300;

/** The blob was collected between storing it and recording a reference: store it again (transient). */
export class BlobGoneError extends Error {
  override readonly name = 'BlobGoneError';
  constructor(readonly blobKey: string) {
    super(`stored image ${blobKey.slice(0, 12)}… was collected before it was recorded; it will be stored again`);
  }
}

/** Serialises writers and the collector of one blob until the transaction ends. */
export async function lockBlob(client: pg.PoolClient, key: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BLOB_LOCK, key]);
}

/** Locks several blobs as lockBlob does, in key order (two writers of overlapping groups cannot deadlock). */
export async function lockBlobs(client: pg.PoolClient, keys: string[]): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext(k)) FROM (SELECT DISTINCT k FROM unnest($2::text[]) AS k ORDER BY k) AS keys', [BLOB_LOCK, keys]);
}

/** Registers blobs about to be (re)written (call holding their locks); a blob being deleted is live again. */
export async function registerBlobs(client: pg.PoolClient, blobs: { key: string; bytes: number }[], graceSeconds: number): Promise<void> {
  await client.query(
    `INSERT INTO stored_blobs AS b (blob_key, bytes, gc_after)
     SELECT t.key, t.bytes, now() + make_interval(secs => $3) FROM unnest($1::text[], $2::bigint[]) AS t(key, bytes) ORDER BY t.key
     ON CONFLICT (blob_key) DO UPDATE
       SET state = 'live', touched_at = now(), bytes = EXCLUDED.bytes,
           gc_after = CASE WHEN b.gc_after IS NULL THEN NULL ELSE EXCLUDED.gc_after END`,
    [blobs.map((b) => b.key), blobs.map((b) => b.bytes), graceSeconds],
  );
}

/** Holds every live blob the account's URL cache has for these URLs (before copying them into records). */
export async function holdCachedBlobs(db: Queryable, accountId: number, urls: string[]): Promise<void> {
  if (!urls.length) return;
  await db.query(
    `SELECT 1 FROM url_blobs u JOIN stored_blobs b ON b.blob_key = u.blob_key AND b.state = 'live'
     WHERE u.account_id = $1 AND u.url = ANY($2::text[])
     ORDER BY b.blob_key
     FOR SHARE OF b`,
    [accountId, urls],
  );
}

/** Puts the URL → blob pair in the account's URL cache (the stored-bytes count); BlobGoneError when collected. */
export async function rememberUrlBlob(db: Queryable, accountId: number, url: string, blob: CachedBlob): Promise<void> {
  const gone = await rememberUrlBlobs(db, [{ accountId, url, blob }]);
  if (gone.size) throw new BlobGoneError(blob.blobKey);
}

/** One URL cache entry to remember. */
export interface UrlBlob {
  accountId: number;
  url: string;
  blob: CachedBlob;
}

/**
 * Puts URL → blob pairs in the URL caches in one statement (the last pair of an account's URL wins), holding
 * each live blob FOR SHARE; answers the keys of the blobs that were collected meanwhile (nothing remembered
 * for them: their callers store them again).
 */
export async function rememberUrlBlobs(db: Queryable, entries: UrlBlob[]): Promise<Set<string>> {
  const byUrl = new Map(entries.map((e) => [`${e.accountId} ${e.url}`, e]));
  const rows = [...byUrl.values()];
  const keys = [...new Set(entries.map((e) => e.blob.blobKey))];
  const result = await db.query<{ blob_key: string }>(
    `WITH live AS (SELECT blob_key FROM stored_blobs WHERE blob_key = ANY($7::text[]) AND state = 'live' ORDER BY blob_key FOR SHARE),
     written AS (
       INSERT INTO url_blobs (account_id, url, blob_key, width, height, bytes)
       SELECT t.account_id, t.url, t.blob_key, t.width, t.height, t.bytes
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::int[], $6::bigint[]) AS t(account_id, url, blob_key, width, height, bytes)
       JOIN live USING (blob_key)
       ON CONFLICT (account_id, url) DO UPDATE
         SET blob_key = EXCLUDED.blob_key, width = EXCLUDED.width, height = EXCLUDED.height, bytes = EXCLUDED.bytes, created_at = now())
     SELECT blob_key FROM live`,
    [
      rows.map((r) => r.accountId),
      rows.map((r) => r.url),
      rows.map((r) => r.blob.blobKey),
      rows.map((r) => r.blob.width),
      rows.map((r) => r.blob.height),
      rows.map((r) => r.blob.bytes ?? 0),
      keys,
    ],
  );
  const live = new Set(result.rows.map((r) => r.blob_key));
  return new Set(keys.filter((k) => !live.has(k)));
}
