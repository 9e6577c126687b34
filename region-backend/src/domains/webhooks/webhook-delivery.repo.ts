/**
 * SQL of the delivery outbox. A process claims due rows with a lease (`lease_until`, a fresh `claim` token)
 * and counts the attempt at once; it records the outcome only while its claim stands. A process killed
 * mid-delivery never records one: its lease runs out and any process claims the row again.
 */
import type pg from 'pg';

export interface ClaimedDelivery {
  id: string;
  claim: string;
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

export async function claimDue(pool: pg.Pool, claim: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await pool.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d
     SET lease_until = now() + make_interval(secs => $3), claim = $1, attempts = d.attempts + 1, last_attempt_at = now()
     FROM webhook_endpoints e
     WHERE e.id = d.endpoint_id AND d.id IN (
       SELECT id FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
       ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING d.id, d.claim, d.event_id, d.event_type, d.body, d.attempts, e.url, e.secret`,
    [claim, limit, leaseMs / 1000],
  );
  return rows;
}

export async function markDelivered(pool: pg.Pool, d: Pick<ClaimedDelivery, 'id' | 'claim'>, httpStatus: number): Promise<void> {
  await pool.query(
    `UPDATE webhook_deliveries SET state = 'delivered', http_status = $3, error = NULL, lease_until = NULL, claim = NULL
     WHERE id = $1 AND claim = $2`,
    [d.id, d.claim, httpStatus],
  );
}

/** A failed attempt: retried after `retryInMs`, or failed for good when `retryInMs` is null. */
export async function markAttemptFailed(
  pool: pg.Pool,
  d: Pick<ClaimedDelivery, 'id' | 'claim'>,
  outcome: { httpStatus: number | null; error: string; retryInMs: number | null },
): Promise<void> {
  await pool.query(
    `UPDATE webhook_deliveries
     SET state = CASE WHEN $5::float8 IS NULL THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN $5::float8 IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $5::float8) END,
         http_status = $3, error = $4, lease_until = NULL, claim = NULL
     WHERE id = $1 AND claim = $2`,
    [d.id, d.claim, outcome.httpStatus, outcome.error.slice(0, 512), outcome.retryInMs === null ? null : outcome.retryInMs / 1000],
  );
}

/** Deletes finished deliveries older than `olderThanMs`. */
export async function forgetFinished(pool: pg.Pool, olderThanMs: number): Promise<number> {
  const result = await pool.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < now() - make_interval(secs => $1) LIMIT 1000)`,
    [olderThanMs / 1000],
  );
  return result.rowCount ?? 0;
}
