/** SQL of batch tasks: RECEIVED → PENDING → STARTED → SUCCESS | FAILURE, and PENDING → REVOKED. */
import type pg from 'pg';
import { formatTimeOrNull } from '@iris/shared';
import { recordEvent, type WebhookEvent } from '../webhooks/webhook-event.repo.js';
import type { Queryable } from '../data-sets/set.repo.js';
import type { BatchLine } from './batch-urls.js';

export type TaskState = 'RECEIVED' | 'PENDING' | 'STARTED' | 'SUCCESS' | 'REVOKED' | 'FAILURE';

export interface BatchTaskRow {
  id: string;
  account_id: number;
  service_id: string;
  params: Record<string, string>;
  lang: 'en' | 'zh';
  state: TaskState;
  total: number;
  success: number;
  result_files: string[];
  message: string | null;
  received_at: Date;
  applied_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  input_bytes: number;
  result_bytes: number;
}

/** Lines inserted per statement when a task is created. */
const INSERT_CHUNK = 5000;

export async function insertTask(
  client: pg.PoolClient,
  task: { id: string; accountId: number; serviceId: string; params: Record<string, string>; lang: string; inputBytes: number },
  lines: BatchLine[],
): Promise<BatchTaskRow> {
  const inserted = await client.query<BatchTaskRow>(
    `INSERT INTO batch_tasks (id, account_id, service_id, params, lang, state, total, input_bytes)
     VALUES ($1, $2, $3, $4, $5, 'RECEIVED', $6, $7) RETURNING *`,
    [task.id, task.accountId, task.serviceId, JSON.stringify(task.params), task.lang, lines.length, task.inputBytes],
  );
  for (let i = 0; i < lines.length; i += INSERT_CHUNK) {
    const chunk = lines.slice(i, i + INSERT_CHUNK);
    await client.query(
      `INSERT INTO batch_items (task_id, line, url) SELECT $1, line, url FROM unnest($2::int[], $3::text[]) AS t (line, url)`,
      [task.id, chunk.map((l) => l.line), chunk.map((l) => l.url)],
    );
  }
  return inserted.rows[0]!;
}

export async function findTask(db: Queryable, accountId: number, id: string): Promise<BatchTaskRow | null> {
  const result = await db.query<BatchTaskRow>('SELECT * FROM batch_tasks WHERE id = $1 AND account_id = $2', [id, accountId]);
  return result.rows[0] ?? null;
}

export async function taskById(db: Queryable, id: string): Promise<BatchTaskRow | null> {
  const result = await db.query<BatchTaskRow>('SELECT * FROM batch_tasks WHERE id = $1', [id]);
  return result.rows[0] ?? null;
}

/** Tasks of the account received in [start, end), oldest first. */
export async function listTasks(db: Queryable, accountId: number, start: Date | null, end: Date | null): Promise<BatchTaskRow[]> {
  const result = await db.query<BatchTaskRow>(
    `SELECT * FROM batch_tasks
     WHERE account_id = $1 AND ($2::timestamptz IS NULL OR received_at >= $2) AND ($3::timestamptz IS NULL OR received_at < $3)
     ORDER BY received_at, id`,
    [accountId, start, end],
  );
  return result.rows;
}

/** What the account keeps: tasks not finished, and bytes of batch files (inputs and results) of all its tasks. */
export async function accountBatchUsage(db: Queryable, accountId: number): Promise<{ open: number; bytes: number }> {
  const result = await db.query<{ open: string; bytes: string }>(
    `SELECT count(*) FILTER (WHERE state IN ('RECEIVED', 'PENDING', 'STARTED')) AS open, COALESCE(sum(input_bytes + result_bytes), 0) AS bytes
     FROM batch_tasks WHERE account_id = $1`,
    [accountId],
  );
  return { open: Number(result.rows[0]!.open), bytes: Number(result.rows[0]!.bytes) };
}

/** Serialises prepares of one account, so its limits hold under concurrent prepares. */
export async function lockAccountPrepares(client: pg.PoolClient, accountId: number): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('batch-prepare'), $1::int)`, [accountId % 2_147_483_647]);
}

/** Serialises applies of one account, so the daily count and the one-running-task rule hold under races. */
export async function lockAccountApplies(client: pg.PoolClient, accountId: number): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('batch-apply'), $1::int)`, [accountId % 2_147_483_647]);
}

/** Tasks the account applied since the start of the current UTC day. */
export async function countAppliedToday(db: Queryable, accountId: number): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM batch_tasks
     WHERE account_id = $1 AND applied_at >= (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`,
    [accountId],
  );
  return Number(result.rows[0]!.n);
}

export async function activeTaskFor(db: Queryable, accountId: number, serviceId: string): Promise<{ id: string; state: TaskState } | null> {
  const result = await db.query<{ id: string; state: TaskState }>(
    `SELECT id, state FROM batch_tasks WHERE account_id = $1 AND service_id = $2 AND state IN ('PENDING', 'STARTED') LIMIT 1`,
    [accountId, serviceId],
  );
  return result.rows[0] ?? null;
}

/** RECEIVED → PENDING; null when the task left RECEIVED meanwhile (it expired). */
export async function markPending(db: Queryable, id: string): Promise<BatchTaskRow | null> {
  const result = await db.query<BatchTaskRow>(`UPDATE batch_tasks SET state = 'PENDING', applied_at = now() WHERE id = $1 AND state = 'RECEIVED' RETURNING *`, [id]);
  return result.rows[0] ?? null;
}

/** PENDING → REVOKED; null when the task is in another state (or not the account's). */
export async function revokeTask(db: Queryable, accountId: number, id: string): Promise<BatchTaskRow | null> {
  const result = await db.query<BatchTaskRow>(
    `UPDATE batch_tasks SET state = 'REVOKED', finished_at = now() WHERE id = $1 AND account_id = $2 AND state = 'PENDING' RETURNING *`,
    [id, accountId],
  );
  return result.rows[0] ?? null;
}

/** PENDING → STARTED (the worker); null when the task was revoked or started meanwhile. */
export async function markStarted(db: Queryable, id: string): Promise<BatchTaskRow | null> {
  const result = await db.query<BatchTaskRow>(`UPDATE batch_tasks SET state = 'STARTED', started_at = now() WHERE id = $1 AND state = 'PENDING' RETURNING *`, [id]);
  return result.rows[0] ?? null;
}

/** STARTED → SUCCESS, and its `batch_task.finished` event: `db` must be inside the task's transaction. */
export async function markSucceeded(db: Queryable, id: string, files: string[], bytes: number): Promise<void> {
  const result = await db.query<BatchTaskRow>(
    `UPDATE batch_tasks SET state = 'SUCCESS', finished_at = now(), result_files = $2, result_bytes = $3, success = total WHERE id = $1 AND state = 'STARTED' RETURNING *`,
    [id, files, bytes],
  );
  if (result.rows[0]) await recordEvent(db, finishedEvent(result.rows[0]));
}

/** PENDING or STARTED → FAILURE, and its `batch_task.finished` event: `db` must be inside a transaction. */
export async function markFailed(db: Queryable, id: string, message: string): Promise<boolean> {
  const result = await db.query<BatchTaskRow>(`UPDATE batch_tasks SET state = 'FAILURE', finished_at = now(), message = $2 WHERE id = $1 AND state IN ('PENDING', 'STARTED') RETURNING *`, [id, message]);
  if (!result.rows[0]) return false;
  await recordEvent(db, finishedEvent(result.rows[0]));
  return true;
}

function finishedEvent(task: BatchTaskRow): WebhookEvent {
  return {
    accountId: Number(task.account_id),
    type: 'batch_task.finished',
    data: { task_id: task.id, service_id: task.service_id, state: task.state, total: task.total, success: task.success, message: task.message, finished_at: formatTimeOrNull(task.finished_at) },
  };
}

export interface QueuedTask {
  id: string;
  service_id: string;
  state: TaskState;
  remaining: number;
  applied_at: Date;
}

/** Every PENDING or STARTED task of the region, in queue order (the order applies arrived). */
export async function taskQueue(db: Queryable): Promise<QueuedTask[]> {
  const result = await db.query<QueuedTask>(
    `SELECT id, service_id, state, total - success AS remaining, applied_at FROM batch_tasks
     WHERE state IN ('PENDING', 'STARTED') ORDER BY applied_at, id`,
  );
  return result.rows;
}
