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

export async function insertBadCase(
  pool: pg.Pool,
  row: { accountId: number; serviceId: string; requestId: string; description: string; details: string },
): Promise<BadCaseRow> {
  const result = await pool.query<BadCaseRow>(
    `INSERT INTO bad_cases (account_id, service_id, request_id, description, details)
     VALUES ($1, $2, $3, $4, $5)
     RETURNING id, service_id, request_id, description, details, status, created_at`,
    [row.accountId, row.serviceId, row.requestId, row.description, row.details],
  );
  return result.rows[0]!;
}

/** Reports the account made in the last 24 hours (the daily bad-case quota). */
export async function countRecentBadCases(pool: pg.Pool, accountId: number): Promise<number> {
  const result = await pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM bad_cases WHERE account_id = $1 AND created_at > now() - interval '1 day'",
    [accountId],
  );
  return Number(result.rows[0]!.n);
}
