/** SQL for search_evaluations: the latest self-evaluation of each search service and its answered queries. */
import type { Queryable } from '../data-sets/set.repo.js';

export type EvaluationRowState = 'queued' | 'running' | 'done' | 'failed';

/** One answered query: its edit, the rank of the source picture (1-based; 0 not found; -1 skipped), its time. */
export interface Outcome {
  e: string;
  r: number;
  ms: number;
}

export interface EvaluationRow {
  id: string;
  service_id: string;
  account_id: number;
  state: EvaluationRowState;
  sample_size: number;
  edits: string[];
  record_ids: number[];
  outcomes: Outcome[];
  rerank_candidates: number;
  message: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const COLUMNS = `id, service_id, account_id::int AS account_id, state, sample_size, edits, record_ids::bigint[]::text[] AS record_ids, outcomes,
  rerank_candidates, message, created_at, started_at, finished_at`;

const parse = (row: EvaluationRow & { record_ids: (string | number)[] }): EvaluationRow => ({ ...row, record_ids: row.record_ids.map(Number) });

/**
 * Queues an evaluation of the service unless one is queued or running for it, or the account already has
 * `accountLimit` of them (one statement); replaces the service's earlier finished evaluations. Null when refused.
 */
export async function insertEvaluation(
  db: Queryable,
  row: { id: string; serviceId: string; accountId: number; sampleSize: number; edits: string[]; rerankCandidates: number },
  accountLimit: number,
): Promise<EvaluationRow | null> {
  const result = await db.query<EvaluationRow>(
    `WITH gone AS (
       DELETE FROM search_evaluations WHERE service_id = $2 AND state IN ('done', 'failed')
         AND (SELECT count(*) FROM search_evaluations WHERE account_id = $3 AND state IN ('queued', 'running')) < $7
     )
     INSERT INTO search_evaluations (id, service_id, account_id, state, sample_size, edits, rerank_candidates)
     SELECT $1, $2, $3, 'queued', $4, $5, $6
      WHERE (SELECT count(*) FROM search_evaluations WHERE account_id = $3 AND state IN ('queued', 'running')) < $7
     ON CONFLICT (service_id) WHERE state IN ('queued', 'running') DO NOTHING
     RETURNING ${COLUMNS}`,
    [row.id, row.serviceId, row.accountId, row.sampleSize, row.edits, row.rerankCandidates, accountLimit],
  );
  return result.rows[0] ? parse(result.rows[0] as never) : null;
}

/** The latest evaluation of a service of the account. */
export async function latestEvaluation(db: Queryable, accountId: number, serviceId: string): Promise<EvaluationRow | null> {
  const result = await db.query(`SELECT ${COLUMNS} FROM search_evaluations WHERE account_id = $1 AND service_id = $2 ORDER BY created_at DESC LIMIT 1`, [accountId, serviceId]);
  return result.rows[0] ? parse(result.rows[0] as never) : null;
}

export async function evaluationById(db: Queryable, id: string): Promise<EvaluationRow | null> {
  const result = await db.query(`SELECT ${COLUMNS} FROM search_evaluations WHERE id = $1`, [id]);
  return result.rows[0] ? parse(result.rows[0] as never) : null;
}

/** Evaluations a process should (re)take: queued or running (their job may have died with a process). */
export async function unfinishedEvaluations(db: Queryable): Promise<string[]> {
  const result = await db.query<{ id: string }>(`SELECT id FROM search_evaluations WHERE state IN ('queued', 'running') ORDER BY created_at`);
  return result.rows.map((r) => r.id);
}

/** Fixes the sample and marks the evaluation running (once: a resumed run keeps its sample). */
export async function startEvaluation(db: Queryable, id: string, recordIds: number[]): Promise<void> {
  await db.query(`UPDATE search_evaluations SET state = 'running', record_ids = $2, started_at = now() WHERE id = $1 AND state = 'queued'`, [id, recordIds]);
}

/**
 * Appends the outcomes of one record's queries, unless another run appended them first (the count of answered
 * queries must still be `answered`). False when nothing was written.
 */
export async function appendOutcomes(db: Queryable, id: string, answered: number, outcomes: Outcome[]): Promise<boolean> {
  const result = await db.query(
    `UPDATE search_evaluations SET outcomes = outcomes || $3::jsonb
     WHERE id = $1 AND state = 'running' AND jsonb_array_length(outcomes) = $2`,
    [id, answered, JSON.stringify(outcomes)],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function finishEvaluation(db: Queryable, id: string, state: 'done' | 'failed', message: string | null = null): Promise<void> {
  await db.query(`UPDATE search_evaluations SET state = $2, message = $3, finished_at = now() WHERE id = $1 AND state IN ('queued', 'running')`, [id, state, message]);
}

/**
 * A deterministic sample of up to `n` live indexed records of the service (a hash of the evaluation id orders
 * them), with their blob keys.
 */
export async function sampleRecords(db: Queryable, serviceId: string, evaluationId: string, n: number): Promise<number[]> {
  const result = await db.query<{ record_id: string }>(
    `SELECT i.record_id FROM search_index_items i
     WHERE i.service_id = $1 AND i.deleted_at IS NULL
     ORDER BY md5($2 || ':' || i.record_id::text) LIMIT $3`,
    [serviceId, evaluationId, n],
  );
  return result.rows.map((r) => Number(r.record_id));
}

/** The stored picture of a live record of the set (null when the record is gone or has none). */
export async function recordBlob(db: Queryable, setId: string, recordId: number): Promise<string | null> {
  const result = await db.query<{ blob_key: string | null }>(
    `SELECT blob_key FROM data_set_records WHERE set_id = $1 AND id = $2 AND deleted_at IS NULL AND status = 'downloaded'`,
    [setId, recordId],
  );
  return result.rows[0]?.blob_key ?? null;
}

/** Blob keys of records (to count a result that is a byte-identical copy of the source as found). */
export async function blobKeysOf(db: Queryable, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const result = await db.query<{ id: string; blob_key: string | null }>('SELECT id, blob_key FROM data_set_records WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(result.rows.filter((r) => r.blob_key).map((r) => [Number(r.id), r.blob_key!]));
}
