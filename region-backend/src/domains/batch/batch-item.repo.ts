/**
 * SQL of a task's lines: pending → running (claimed with a token and a lease) → done (output written once).
 * A claim whose lease ran out (its process died) is claimed again; claims never wait on locks.
 */
import type { Queryable } from '../data-sets/set.repo.js';

export interface ClaimedItem {
  line: number;
  url: string;
  attempts: number;
}

export async function claimItems(db: Queryable, taskId: string, limit: number, leaseSeconds: number, token: string): Promise<ClaimedItem[]> {
  const result = await db.query<ClaimedItem>(
    // The pick is a materialised CTE: as an IN (… LIMIT … SKIP LOCKED) subquery, the planner may run it again
    // per row and claim far more than `limit` lines (each run skips the rows the previous one locked).
    `WITH picked AS MATERIALIZED (
       SELECT line FROM batch_items
       WHERE task_id = $1 AND (state = 'pending' OR (state = 'running' AND lease_until < now()))
       ORDER BY line
       LIMIT $2
       FOR UPDATE SKIP LOCKED)
     UPDATE batch_items i
     SET state = 'running', attempts = i.attempts + 1, claim_token = $4, lease_until = now() + make_interval(secs => $3)
     FROM picked
     WHERE i.task_id = $1 AND i.line = picked.line
     RETURNING i.line, i.url, i.attempts`,
    [taskId, limit, leaseSeconds, token],
  );
  return result.rows;
}

/**
 * Stores a line's output and counts it on the task, in one statement; false when the claim was lost (its
 * lease expired and another process took the line), in which case that process answers it.
 */
export async function completeItem(db: Queryable, taskId: string, line: number, token: string, output: string): Promise<boolean> {
  const result = await db.query<{ n: number }>(
    `WITH done AS (
       UPDATE batch_items SET state = 'done', output = $4, lease_until = NULL, claim_token = NULL
       WHERE task_id = $1 AND line = $2 AND state = 'running' AND claim_token = $3
       RETURNING 1)
     UPDATE batch_tasks SET success = success + (SELECT count(*) FROM done) WHERE id = $1
     RETURNING (SELECT count(*) FROM done) AS n`,
    [taskId, line, token, output],
  );
  return Number(result.rows[0]?.n ?? 0) > 0;
}

/** Gives a claimed line back (this process is shutting down): the next claim takes it without waiting for the lease. */
export async function releaseItem(db: Queryable, taskId: string, line: number, token: string): Promise<void> {
  await db.query(
    `UPDATE batch_items SET state = 'pending', attempts = greatest(attempts - 1, 0), lease_until = NULL, claim_token = NULL
     WHERE task_id = $1 AND line = $2 AND state = 'running' AND claim_token = $3`,
    [taskId, line, token],
  );
}

export async function renewLeases(db: Queryable, taskId: string, lines: number[], token: string, leaseSeconds: number): Promise<void> {
  if (!lines.length) return;
  await db.query(
    `UPDATE batch_items SET lease_until = now() + make_interval(secs => $4)
     WHERE task_id = $1 AND line = ANY($2::int[]) AND state = 'running' AND claim_token = $3`,
    [taskId, lines, token, leaseSeconds],
  );
}

/** Lines not yet answered, and when the earliest lease held by someone else runs out. */
export async function unfinishedItems(db: Queryable, taskId: string): Promise<{ n: number; leaseEnds: Date | null }> {
  const result = await db.query<{ n: number; lease_ends: Date | null }>(
    `SELECT count(*) AS n, min(lease_until) FILTER (WHERE state = 'running') AS lease_ends FROM batch_items WHERE task_id = $1 AND state <> 'done'`,
    [taskId],
  );
  const row = result.rows[0]!;
  return { n: Number(row.n), leaseEnds: row.lease_ends };
}

/** Outputs in line order, one page after `afterLine`. */
export async function readOutputs(db: Queryable, taskId: string, afterLine: number, limit: number): Promise<{ line: number; output: string }[]> {
  const result = await db.query<{ line: number; output: string }>(
    'SELECT line, output FROM batch_items WHERE task_id = $1 AND line > $2 ORDER BY line LIMIT $3',
    [taskId, afterLine, limit],
  );
  return result.rows;
}

export async function deleteItems(db: Queryable, taskId: string): Promise<void> {
  await db.query('DELETE FROM batch_items WHERE task_id = $1', [taskId]);
}
