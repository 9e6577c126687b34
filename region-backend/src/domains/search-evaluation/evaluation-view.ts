/** The evaluation object of the API: state, progress, and the report of the queries answered so far. */
import { formatTimeOrNull, type SearchEvaluationObject } from '@iris/shared';
import type { EvaluationRow, Outcome } from './evaluation.repo.js';

type Report = NonNullable<SearchEvaluationObject['report']>;

const share = (hits: number, total: number) => (total ? Math.round((hits / total) * 10_000) / 10_000 : 0);

/** The value below which `q` of the sorted values lie (nearest rank). */
function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Recall@1 and @10 per edit (in the order asked) and overall, and the p50/p95 query time. Skipped queries do not count. */
export function evaluationReport(edits: readonly string[], outcomes: readonly Outcome[], records: number, rerankCandidates: number): Report {
  const counted = outcomes.filter((o) => o.r >= 0);
  const recall = (list: Outcome[]) => ({ recall_at_1: share(list.filter((o) => o.r === 1).length, list.length), recall_at_10: share(list.filter((o) => o.r >= 1 && o.r <= 10).length, list.length) });
  const times = counted.map((o) => o.ms).sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 10) / 10;
  return {
    records,
    queries: counted.length,
    per_edit: edits.map((edit) => {
      const list = counted.filter((o) => o.e === edit);
      return { edit, queries: list.length, ...recall(list) };
    }),
    overall: recall(counted),
    latency_ms: { p50: ms(quantile(times, 0.5)), p95: ms(quantile(times, 0.95)) },
    rerank_candidates: rerankCandidates,
  };
}

export function evaluationObject(serviceId: string, row: EvaluationRow | null, requestId: string): SearchEvaluationObject {
  if (!row) {
    return { request_id: requestId, service_id: serviceId, state: 'none', sample_size: 0, edits: [], progress: { done: 0, total: 0 }, created_at: null, started_at: null, finished_at: null, message: null, report: null };
  }
  const records = row.record_ids.length;
  // Until the sample is drawn, the plan is the sample size asked for.
  const total = (row.state === 'queued' ? row.sample_size : records) * row.edits.length;
  return {
    request_id: requestId,
    service_id: serviceId,
    state: row.state,
    sample_size: row.sample_size,
    edits: row.edits,
    progress: { done: row.outcomes.length, total: Math.max(total, row.outcomes.length) },
    created_at: formatTimeOrNull(row.created_at),
    started_at: formatTimeOrNull(row.started_at),
    finished_at: formatTimeOrNull(row.finished_at),
    message: row.message,
    report: row.outcomes.length || row.state === 'done' ? evaluationReport(row.edits, row.outcomes, records, row.rerank_candidates) : null,
  };
}
