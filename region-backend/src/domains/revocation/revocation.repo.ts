/**
 * Stopping an account's queued work at once (SQL only): when the edge disables an account, its unfinished
 * batch tasks end in FAILURE with the reason, its pending downloads fail, its unfinished trainings fail;
 * when a grant of a ready-made service is revoked, only the account's batch tasks of that service stop.
 * Workers running such work notice at their next step (they claim nothing more; a failed task or training
 * is never turned back into success).
 */
import type pg from 'pg';

export interface Revocation {
  accountId: number;
  /** Only work of this service (a revoked grant); all of the account's work when absent (disabled account). */
  serviceId?: string | undefined;
  reason: string;
}

export interface RevocationResult {
  batchTasks: number;
  downloads: number;
  trainings: number;
}

export async function revokeQueuedWork(pool: pg.Pool, revocation: Revocation): Promise<RevocationResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const tasks = await client.query<{ id: string }>(
      `UPDATE batch_tasks SET state = 'FAILURE', finished_at = now(), message = $3
       WHERE account_id = $1 AND ($2::text IS NULL OR service_id = $2) AND state IN ('RECEIVED', 'PENDING', 'STARTED')
       RETURNING id`,
      [revocation.accountId, revocation.serviceId ?? null, revocation.reason],
    );
    if (tasks.rows.length) await client.query('DELETE FROM batch_items WHERE task_id = ANY($1::text[])', [tasks.rows.map((t) => t.id)]);
    let downloads = 0;
    let trainings = 0;
    if (revocation.serviceId === undefined) {
      downloads =
        (
          await client.query(
            `UPDATE data_set_records r SET status = 'failed', last_error = $2, lease_until = NULL
             FROM data_sets s WHERE s.id = r.set_id AND s.account_id = $1
               AND r.status IN ('pending', 'downloading') AND r.deleted_at IS NULL`,
            [revocation.accountId, revocation.reason],
          )
        ).rowCount ?? 0;
      trainings =
        (
          await client.query(
            `UPDATE custom_services SET status = 'failed', stage = 'failed', message = $2, updated_at = now()
             WHERE account_id = $1 AND status IN ('pending', 'preparing')`,
            [revocation.accountId, revocation.reason],
          )
        ).rowCount ?? 0;
    }
    await client.query('COMMIT');
    return { batchTasks: tasks.rows.length, downloads, trainings };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
