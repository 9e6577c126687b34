import type pg from 'pg';

export interface BadCaseRow {
  id: number;
  service_id: string;
  request_id: string;
  description: string;
  details: string;
  status: string;
  created_at: Date;
}

const REPORT_LOCK = 7_301_201;

/**
 * Stores a report unless the account made `dailyLimit` in the last 24 hours (null then). An advisory lock per
 * account makes the count and the insert one step, so concurrent reports cannot overshoot.
 */
export async function insertBadCase(
  pool: pg.Pool,
  row: { accountId: number; serviceId: string; requestId: string; description: string; details: string },
  dailyLimit: number,
): Promise<BadCaseRow | null> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [REPORT_LOCK, row.accountId % 2 ** 31]);
    const recent = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM bad_cases WHERE account_id = $1 AND created_at > now() - interval '1 day'",
      [row.accountId],
    );
    if (Number(recent.rows[0]!.n) >= dailyLimit) {
      await client.query('ROLLBACK');
      return null;
    }
    const result = await client.query<BadCaseRow>(
      `INSERT INTO bad_cases (account_id, service_id, request_id, description, details)
       VALUES ($1, $2, $3, $4, $5)
       RETURNING id, service_id, request_id, description, details, status, created_at`,
      [row.accountId, row.serviceId, row.requestId, row.description, row.details],
    );
    await client.query('COMMIT');
    return result.rows[0]!;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
