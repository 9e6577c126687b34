/**
 * SQL of the support documents: a batch task's or a service's row, its counters, and its latest failures.
 * Every read is scoped to the account and bounded: the failures are the latest SUPPORT_MAX_FAILURES, looked
 * for among the latest FAILURE_WINDOW lines or records only, so a task of a million lines costs what a small one does.
 */
import { SUPPORT_MAX_FAILURES } from '@iris/shared';
import type { Queryable } from '../data-sets/set.repo.js';
import { ERROR_LINE, resultFileFailures, type ErrorLine } from './result-file-failures.js';

/** Lines or records looked through for failures, latest first. */
export const FAILURE_WINDOW = 10_000;
/** Longest text of a failure or a message in the document. */
const MAX_TEXT = 1000;

export interface Failure {
  at: Date | null;
  ref: string;
  message: string;
}

export interface StateParts {
  configuration: Record<string, unknown>;
  counters: Record<string, number>;
  recent_failures: Failure[];
}

const cut = (text: string | null | undefined): string | null => (text == null ? null : text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/** The set's latest failed downloads (url and reason), by when they failed. */
async function failedRecords(db: Queryable, setId: string): Promise<Failure[]> {
  const { rows } = await db.query<{ updated_at: Date; url: string; last_error: string | null }>(
    `SELECT updated_at, url, last_error FROM (
       SELECT updated_at, url, last_error, status FROM data_set_records
       WHERE set_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2
     ) latest WHERE status = 'failed' ORDER BY updated_at DESC LIMIT $3`,
    [setId, FAILURE_WINDOW, SUPPORT_MAX_FAILURES],
  );
  return rows.map((r) => ({ at: r.updated_at, ref: r.url, message: cut(r.last_error) ?? 'failed' }));
}

async function setCounters(db: Queryable, setId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ records: number; downloaded: number; failed: number }>(
    `SELECT count(*)::float8 AS records, count(*) FILTER (WHERE status = 'downloaded')::float8 AS downloaded,
            count(*) FILTER (WHERE status = 'failed')::float8 AS failed
     FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL`,
    [setId],
  );
  const c = rows[0]!;
  return { records: c.records, downloaded: c.downloaded, failed: c.failed, pending: c.records - c.downloaded - c.failed };
}

/**
 * A task's row, its unfinished lines, and its latest error lines: from the lines while it runs, from the ends
 * of its result files (in `taskDir`) once it finished and its lines were deleted.
 */
export async function batchTaskState(db: Queryable, accountId: number, taskId: string, taskDir: (taskId: string) => string): Promise<StateParts | null> {
  const { rows } = await db.query<Record<string, unknown> & { total: number; success: number; input_bytes: string; result_bytes: string; message: string | null; result_files: string[] }>(
    `SELECT service_id, params, lang, state, message, result_files, received_at, applied_at, started_at, finished_at, total, success, input_bytes, result_bytes
     FROM batch_tasks WHERE id = $1 AND account_id = $2`,
    [taskId, accountId],
  );
  const task = rows[0];
  if (!task) return null;
  const { total, success, input_bytes, result_bytes, message, ...configuration } = task;
  const work = await db.query<{ pending: number; running: number }>(
    `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'running')::int AS running
     FROM batch_items WHERE task_id = $1 AND state <> 'done'`,
    [taskId],
  );
  const failures = task.result_files.length
    ? await resultFileFailures(taskDir(taskId), task.result_files, SUPPORT_MAX_FAILURES, FAILURE_WINDOW)
    : await lineFailures(db, taskId);
  return {
    configuration: { ...configuration, message: cut(message) },
    counters: { total, answered: success, pending: work.rows[0]!.pending, running: work.rows[0]!.running, input_bytes: Number(input_bytes), result_bytes: Number(result_bytes) },
    recent_failures: failures.map((f) => ({ at: null, ref: `line ${f.line}: ${f.url}`, message: cut(`${f.error.error_code ?? ''} ${f.error.message ?? ''}`.trim()) ?? '' })),
  };
}

/** The latest error lines among a running task's latest FAILURE_WINDOW answered lines (ERROR_LINE, in SQL). */
async function lineFailures(db: Queryable, taskId: string): Promise<ErrorLine[]> {
  const { rows } = await db.query<{ output: string }>(
    `SELECT output FROM (
       SELECT line, output FROM batch_items WHERE task_id = $1 AND state = 'done' ORDER BY line DESC LIMIT $2
     ) latest WHERE output ~ $4 ORDER BY line DESC LIMIT $3`,
    [taskId, FAILURE_WINDOW, SUPPORT_MAX_FAILURES, ERROR_LINE.source],
  );
  return rows.map((r) => JSON.parse(r.output) as ErrorLine);
}

export async function searchServiceState(db: Queryable, accountId: number, serviceId: string): Promise<StateParts | null> {
  const { rows } = await db.query<Record<string, unknown> & { set_id: string; n_indexed: number; source_seq: string; index_seq: string }>(
    `SELECT name, kind, scenario, set_id, product_set_id, pipeline, created_at, updated_at, indexed_at, caught_up_at, n_indexed, source_seq, index_seq
     FROM search_services WHERE id = $1 AND account_id = $2`,
    [serviceId, accountId],
  );
  const service = rows[0];
  if (!service) return null;
  const { n_indexed, source_seq, index_seq, ...configuration } = service;
  return {
    configuration,
    counters: { n_indexed, source_seq: Number(source_seq), index_seq: Number(index_seq), ...(await setCounters(db, service.set_id)) },
    recent_failures: await failedRecords(db, service.set_id),
  };
}

export async function customServiceState(db: Queryable, accountId: number, serviceId: string): Promise<StateParts | null> {
  const { rows } = await db.query<Record<string, unknown> & { training_set_id: string; message: string | null; progress: number; validation_accuracy: number | null; run_failures: number; run_kills: number }>(
    `SELECT name, description, scenario, training_set_id, status, stage, message, label_counts, created_at, updated_at,
            progress, validation_accuracy, run_failures, run_kills
     FROM custom_services WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`,
    [serviceId, accountId],
  );
  const service = rows[0];
  if (!service) return null;
  const { progress, validation_accuracy, run_failures, run_kills, message, ...configuration } = service;
  const set = await db.query<{ id: string }>(`SELECT id FROM data_sets WHERE id = $1 AND account_id = $2`, [service.training_set_id, accountId]);
  const setId = set.rows[0]?.id;
  return {
    configuration: { ...configuration, message: cut(message) },
    counters: { progress, run_failures, run_kills, ...(validation_accuracy === null ? {} : { validation_accuracy }), ...(setId ? await setCounters(db, setId) : {}) },
    recent_failures: setId ? await failedRecords(db, setId) : [],
  };
}
