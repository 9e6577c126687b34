/** SQL of the usage counters: one upsert of many daily rows, and an account's rows over a range of days. */
import type { Queryable } from '../data-sets/set.repo.js';

/** One account's counts for one UTC day and service, as the meter holds them. */
export interface UsageRow {
  accountId: number;
  /** YYYY-MM-DD (UTC). */
  day: string;
  service: string;
  calls: number;
  picturesAnalysed: number;
  picturesStored: number;
  bytesStored: number;
  inferenceMs: number;
  batchLines: number;
}

/** Adds the rows' counts to their daily rows (created when missing): one statement, whatever the number of rows. */
export async function addUsage(db: Queryable, rows: readonly UsageRow[]): Promise<void> {
  if (!rows.length) return;
  // One order for every process: two flushes locking the same rows in different orders could deadlock.
  const sorted = [...rows].sort((a, b) => a.accountId - b.accountId || (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) || (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  const column = <K extends keyof UsageRow>(key: K) => sorted.map((r) => r[key]);
  await db.query(
    `INSERT INTO usage_daily AS u (account_id, day, service, calls, pictures_analysed, pictures_stored, bytes_stored, inference_ms, batch_lines)
     SELECT * FROM unnest($1::bigint[], $2::date[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
     ON CONFLICT (account_id, day, service) DO UPDATE SET
       calls = u.calls + EXCLUDED.calls,
       pictures_analysed = u.pictures_analysed + EXCLUDED.pictures_analysed,
       pictures_stored = u.pictures_stored + EXCLUDED.pictures_stored,
       bytes_stored = u.bytes_stored + EXCLUDED.bytes_stored,
       inference_ms = u.inference_ms + EXCLUDED.inference_ms,
       batch_lines = u.batch_lines + EXCLUDED.batch_lines`,
    [
      column('accountId'), column('day'), column('service'), column('calls'), column('picturesAnalysed'), column('picturesStored'),
      column('bytesStored'), sorted.map((r) => Math.round(r.inferenceMs)), column('batchLines'),
    ],
  );
}

export interface StoredUsageDay {
  day: string;
  service: string;
  calls: number;
  pictures_analysed: number;
  pictures_stored: number;
  bytes_stored: number;
  inference_ms: number;
  batch_lines: number;
}

/** The account's daily rows from `from` to `to` (both included), by day then service. */
export async function usageDays(db: Queryable, accountId: number, from: string, to: string): Promise<StoredUsageDay[]> {
  const result = await db.query<StoredUsageDay>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, service, calls::float8 AS calls, pictures_analysed::float8 AS pictures_analysed,
            pictures_stored::float8 AS pictures_stored, bytes_stored::float8 AS bytes_stored, inference_ms::float8 AS inference_ms,
            batch_lines::float8 AS batch_lines
     FROM usage_daily WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date
     ORDER BY day, service`,
    [accountId, from, to],
  );
  return result.rows;
}

/** What the account holds in the region now: live records and stored bytes (the quota counters). */
export async function storedNow(db: Queryable, accountId: number): Promise<{ records: number; bytes: number }> {
  const result = await db.query<{ records: number; bytes: number }>(
    `SELECT coalesce((SELECT records FROM account_records WHERE account_id = $1), 0)::float8 AS records,
            coalesce((SELECT bytes FROM account_stored_bytes WHERE account_id = $1), 0)::float8 AS bytes`,
    [accountId],
  );
  return result.rows[0] ?? { records: 0, bytes: 0 };
}
