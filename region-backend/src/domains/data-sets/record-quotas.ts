/**
 * The record quotas of an account: records per set and per account, checked inside the transaction that adds
 * records, before it commits and before any download is queued (a refused add changes nothing); stored
 * bytes, checked before an add starts (images are sized only once downloaded). An advisory lock per account serialises the final count of concurrent adds to
 * different sets of one account, so they cannot overshoot together.
 */
import { ApiError, type Quotas } from '@iris/shared';
import type { Queryable } from './set.repo.js';

export type RecordQuotas = Pick<Quotas, 'recordsPerSet' | 'records' | 'storedBytes'>;

const ACCOUNT_LOCK = 7_301_200;

/** What the account's URL cache stores, in bytes (kept by a trigger on url_blobs: one row read). */
export async function storedBytes(db: Queryable, accountId: number): Promise<number> {
  const result = await db.query<{ bytes: string }>('SELECT bytes FROM account_stored_bytes WHERE account_id = $1', [accountId]);
  return Number(result.rows[0]?.bytes ?? 0);
}

/**
 * Live records of the account, this transaction's included (kept by triggers on the records and sets,
 * migration 074: one row read).
 */
export async function liveRecords(db: Queryable, accountId: number): Promise<number> {
  const result = await db.query<{ records: string }>('SELECT records FROM account_records WHERE account_id = $1', [accountId]);
  return Number(result.rows[0]?.records ?? 0);
}

/** Throws the quota's 403 when the account holds more than its quotas allow (call before commit). */
export async function assertRecordQuotas(db: Queryable, accountId: number, setId: string, quotas: RecordQuotas): Promise<void> {
  const inSet = await db.query<{ n: string }>('SELECT count(*) AS n FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL', [setId]);
  if (Number(inSet.rows[0]!.n) > quotas.recordsPerSet) {
    throw new ApiError('setRecordQuota', `a set holds at most ${quotas.recordsPerSet} records`);
  }
  await db.query('SELECT pg_advisory_xact_lock($1, $2)', [ACCOUNT_LOCK, accountId % 2 ** 31]);
  if ((await liveRecords(db, accountId)) > quotas.records) {
    throw new ApiError('accountRecordQuota', `an account holds at most ${quotas.records} records`);
  }
}

/**
 * Throws 403/3010 once the account's stored images reach its byte quota (checked before an add starts), and
 * remembers the quota for the downloads the add queues (they check it again before storing each image).
 */
export async function assertStoredBytes(db: Queryable, accountId: number, quotas: RecordQuotas | undefined): Promise<void> {
  if (!quotas) return;
  await db.query(
    `INSERT INTO account_stored_bytes_quota (account_id, stored_bytes) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET stored_bytes = EXCLUDED.stored_bytes, updated_at = now()
     WHERE account_stored_bytes_quota.stored_bytes IS DISTINCT FROM EXCLUDED.stored_bytes`,
    [accountId, quotas.storedBytes],
  );
  if ((await storedBytes(db, accountId)) >= quotas.storedBytes) {
    throw new ApiError('storedBytesQuota', `the account's stored images reached ${quotas.storedBytes} bytes`);
  }
}
