/**
 * `iris evaluate <service_id> [--sample-size n] [--edits a,b] [--wait]`: starts a search service's
 * self-evaluation (or, with --status, only reads the latest one); --wait draws a progress bar until it ends
 * and prints the report as a table.
 */
import type { SearchEvaluationObject } from './shared.js';
import type { IrisClient } from './client.js';
import { t, type Lang } from './messages.js';
import { watch } from './progress.js';

export interface EvaluateOptions {
  'sample-size'?: string;
  edits?: string;
  wait?: boolean;
  status?: boolean;
  'timeout-seconds'?: string;
}

const finished = (e: SearchEvaluationObject) => e.state === 'done' || e.state === 'failed' || e.state === 'none';

/** The report as a text table: one row per edit, then overall, then the latency. */
export function reportText(e: SearchEvaluationObject, lang: Lang): string {
  const head = `${e.service_id}: ${e.state} ${e.progress.done}/${e.progress.total}${e.message ? ` — ${e.message}` : ''}`;
  if (!e.report) return head;
  const pct = (v: number) => v.toFixed(3).padStart(9);
  const rows = e.report.per_edit.map((r) => `${r.edit.padEnd(14)}${String(r.queries).padStart(8)}${pct(r.recall_at_1)}${pct(r.recall_at_10)}`);
  return [
    head,
    `${'edit'.padEnd(14)}${'queries'.padStart(8)}${'R@1'.padStart(9)}${'R@10'.padStart(9)}`,
    ...rows,
    `${'overall'.padEnd(14)}${String(e.report.queries).padStart(8)}${pct(e.report.overall.recall_at_1)}${pct(e.report.overall.recall_at_10)}`,
    `latency p50 ${e.report.latency_ms.p50} ms, p95 ${e.report.latency_ms.p95} ms (${e.report.records} ${lang === 'zh' ? '张图片' : 'pictures'}, ${e.report.rerank_candidates} re-ranked)`,
  ].join('\n');
}

export async function evaluate(client: IrisClient, serviceId: string, opts: EvaluateOptions): Promise<{ value: SearchEvaluationObject; text: string }> {
  const lang = client.config.lang;
  const params = { service_id: serviceId };
  const read = () => client.call('getSearchEvaluation', { params });
  let evaluation = opts.status
    ? await read()
    : await client.call('startSearchEvaluation', { params, json: { ...(opts['sample-size'] ? { sample_size: opts['sample-size'] } : {}), ...(opts.edits ? { edits: opts.edits } : {}) } });
  if (opts.wait && !finished(evaluation)) {
    evaluation = await watch(
      lang === 'zh' ? '评估中' : 'evaluating',
      async () => {
        const e = await read();
        return { progress: { done: e.progress.done, total: e.progress.total, finished: finished(e), note: e.state === 'queued' ? t(lang, 'waiting') : '' }, value: e };
      },
      { ...(opts['timeout-seconds'] ? { timeoutMs: Number(opts['timeout-seconds']) * 1000 } : {}) },
    );
  }
  return { value: evaluation, text: reportText(evaluation, lang) };
}
