/**
 * SQL of the download state machine: pending → downloading (leased) → downloaded | failed, with retries
 * going back to pending after a back-off. Claims never wait on locks (SKIP LOCKED), and a claim whose
 * lease ran out (its process died) is claimed again.
 */
import type pg from 'pg';
import { BlobGoneError, rememberUrlBlobs } from '../blob-gc/blob-refs.repo.js';
import { withLockedSet, type StoredBlob } from '../data-sets/record.repo.js';
import type { Queryable } from '../data-sets/set.repo.js';

export interface ClaimedRecord {
  id: number;
  url: string;
  attempts: number;
  account_id: number;
}

/**
 * The claim: a materialised CTE, since as an IN (… LIMIT … SKIP LOCKED) subquery the planner may run the pick
 * again per row and claim more than `limit` records. Due order (next_attempt_at) on the partial index of
 * unfinished records: picking in id order walked past every record already downloaded, once per claim.
 */
export const CLAIM_SQL = `WITH picked AS MATERIALIZED (
   SELECT id FROM data_set_records
   WHERE set_id = $1 AND deleted_at IS NULL AND status IN ('pending', 'downloading')
     AND ((status = 'pending' AND next_attempt_at <= now()) OR (status = 'downloading' AND lease_until < now()))
   ORDER BY next_attempt_at
   LIMIT $2
   FOR UPDATE SKIP LOCKED)
 UPDATE data_set_records r
 SET status = 'downloading', attempts = r.attempts + 1, lease_until = now() + make_interval(secs => $3)
 FROM picked, data_sets s
 WHERE r.id = picked.id AND s.id = r.set_id
 RETURNING r.id, r.url, r.attempts, s.account_id`;

/** Claims up to `limit` records of a set that are due (pending, or downloading with an expired lease). */
export async function claimRecords(db: Queryable, setId: string, limit: number, leaseSeconds: number): Promise<ClaimedRecord[]> {
  return (await db.query<ClaimedRecord>(CLAIM_SQL, [setId, limit, leaseSeconds])).rows;
}

/** Gives back claimed records this process did not start: pending again, due now, the attempt not counted. */
export async function releaseClaims(db: Queryable, ids: number[]): Promise<void> {
  await db.query(
    `UPDATE data_set_records SET status = 'pending', attempts = attempts - 1, lease_until = NULL
     WHERE id = ANY($1::bigint[]) AND status = 'downloading'`,
    [ids],
  );
}

/** Extends the leases of records this process is still working on (never waits on a locked row). */
export async function renewLeases(db: Queryable, ids: number[], leaseSeconds: number): Promise<void> {
  if (!ids.length) return;
  await db.query(
    `UPDATE data_set_records SET lease_until = now() + make_interval(secs => $2)
     WHERE id IN (SELECT id FROM data_set_records WHERE id = ANY($1::bigint[]) AND status = 'downloading' FOR UPDATE SKIP LOCKED)`,
    [ids, leaseSeconds],
  );
}

/** A claimed record and the image stored for it. */
export interface Completion {
  record: ClaimedRecord;
  blob: StoredBlob;
}

/**
 * Marks claimed records of a set downloaded (a record deleted meanwhile stays deleted), with the accounts' URL
 * cache entries, in one transaction of three statements however many records; answers per record null, or
 * BlobGoneError when its image was collected meanwhile (retry: nothing was written for it).
 */
export async function completeRecords(pool: pg.Pool, setId: string, completions: Completion[]): Promise<(BlobGoneError | null)[]> {
  const done = await withLockedSet(pool, setId, {}, async (tx) => {
    const gone = await rememberUrlBlobs(
      tx.client,
      completions.map(({ record, blob }) => ({ accountId: record.account_id, url: record.url, blob })),
    );
    const live = completions.filter((c) => !gone.has(c.blob.blobKey));
    if (live.length) {
      await tx.client.query(
        `UPDATE data_set_records r SET status = 'downloaded', blob_key = t.blob_key, width = t.width, height = t.height, last_error = NULL, lease_until = NULL
         FROM unnest($2::bigint[], $3::text[], $4::int[], $5::int[]) AS t(id, blob_key, width, height)
         WHERE r.set_id = $1 AND r.id = t.id AND r.status = 'downloading' AND r.deleted_at IS NULL`,
        [setId, live.map((c) => c.record.id), live.map((c) => c.blob.blobKey), live.map((c) => c.blob.width), live.map((c) => c.blob.height)],
      );
    }
    return gone;
  });
  const gone = done?.value ?? new Set<string>();
  return completions.map((c) => (gone.has(c.blob.blobKey) ? new BlobGoneError(c.blob.blobKey) : null));
}

/** Marks a claimed record failed for good. */
export async function failRecord(pool: pg.Pool, setId: string, recordId: number, error: string): Promise<void> {
  await withLockedSet(pool, setId, {}, async (tx) => {
    await tx.client.query(
      `UPDATE data_set_records SET status = 'failed', last_error = $3, lease_until = NULL
       WHERE set_id = $1 AND id = $2 AND status = 'downloading' AND deleted_at IS NULL`,
      [setId, recordId, error],
    );
  });
}

/** Puts a claimed record back to pending, due again after `delaySeconds` (no change_seq: nothing visible changed). */
export async function retryRecordLater(db: Queryable, recordId: number, error: string, delaySeconds: number): Promise<void> {
  await db.query(
    `UPDATE data_set_records SET status = 'pending', last_error = $2, lease_until = NULL, next_attempt_at = now() + make_interval(secs => $3)
     WHERE id = $1 AND status = 'downloading' AND deleted_at IS NULL`,
    [recordId, error, delaySeconds],
  );
}

/** When the set next has work that could be claimed (now or later), or null when nothing is unfinished. */
export async function nextWorkAt(db: Queryable, setId: string): Promise<Date | null> {
  const result = await db.query<{ at: Date | null }>(
    `SELECT min(CASE WHEN status = 'pending' THEN next_attempt_at ELSE lease_until END) AS at
     FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL AND status IN ('pending', 'downloading')`,
    [setId],
  );
  return result.rows[0]?.at ?? null;
}

/** True while the set has downloads running or due now (not counting records waiting for a later retry). */
export async function downloadsDue(db: Queryable, setId: string): Promise<boolean> {
  const result = await db.query<{ due: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL
         AND (status = 'downloading' OR (status = 'pending' AND next_attempt_at <= now()))
     ) AS due`,
    [setId],
  );
  return result.rows[0]?.due ?? false;
}

/** Every set with unfinished records, and when its first one is due (boot-time recovery). */
export async function setsWithUnfinishedWork(db: Queryable): Promise<{ set_id: string; due_at: Date }[]> {
  const result = await db.query<{ set_id: string; due_at: Date }>(
    `SELECT set_id, min(CASE WHEN status = 'pending' THEN next_attempt_at ELSE lease_until END) AS due_at
     FROM data_set_records WHERE deleted_at IS NULL AND status IN ('pending', 'downloading')
     GROUP BY set_id`,
  );
  return result.rows;
}

/** What a download needs to know first, in one statement: the account's cached copy of the URL, when it is still stored, and its stored-bytes budget. */
export async function cachedBlobAndBudget(db: Queryable, accountId: number, url: string, fallback: number): Promise<{ cached: StoredBlob | null; limit: number; used: number }> {
  const result = await db.query<{ blob_key: string | null; width: number; height: number; bytes: string; quota: string | null; used: string }>(
    `SELECT c.blob_key, c.width, c.height, c.bytes,
            (SELECT stored_bytes FROM account_stored_bytes_quota WHERE account_id = $1) AS quota,
            coalesce((SELECT bytes FROM account_stored_bytes WHERE account_id = $1), 0) AS used
     FROM (SELECT 1) AS one LEFT JOIN (
       SELECT u.blob_key, u.width, u.height, u.bytes FROM url_blobs u JOIN stored_blobs b ON b.blob_key = u.blob_key AND b.state = 'live'
       WHERE u.account_id = $1 AND u.url = $2
     ) AS c ON true`,
    [accountId, url],
  );
  const row = result.rows[0]!;
  return {
    cached: row.blob_key === null ? null : { blobKey: row.blob_key, width: row.width, height: row.height, bytes: Number(row.bytes) },
    limit: row.quota === null ? fallback : Number(row.quota),
    used: Number(row.used),
  };
}

/**
 * The stored-bytes quota of queued downloads: the quota the edge last sent for the account (the default
 * when it never sent one), and what the account stores now.
 */
export async function storedBytesBudget(db: Queryable, accountId: number, fallback: number): Promise<{ limit: number; used: number }> {
  const result = await db.query<{ quota: string | null; used: string }>(
    `SELECT (SELECT stored_bytes FROM account_stored_bytes_quota WHERE account_id = $1) AS quota,
            coalesce((SELECT bytes FROM account_stored_bytes WHERE account_id = $1), 0) AS used`,
    [accountId],
  );
  const row = result.rows[0]!;
  return { limit: row.quota === null ? fallback : Number(row.quota), used: Number(row.used) };
}

/** The owner of a set (downloads take turns per account), or null when the set is gone. */
export async function setAccount(db: Queryable, setId: string): Promise<string | null> {
  const result = await db.query<{ account_id: string }>('SELECT account_id FROM data_sets WHERE id = $1', [setId]);
  return result.rows[0] ? String(result.rows[0].account_id) : null;
}
