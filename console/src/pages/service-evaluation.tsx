/**
 * A search service's self-evaluation (Iris extension `/customer_services/_0000172/{id}/evaluation`): start one
 * with a sample size, watch its progress, read recall@1/@10 per edit and the query latency.
 */
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

interface EditReport {
  edit: string;
  queries: number;
  recall_at_1: number;
  recall_at_10: number;
}

export interface Evaluation {
  state: 'none' | 'queued' | 'running' | 'done' | 'failed';
  sample_size: number;
  edits: string[];
  progress: { done: number; total: number };
  finished_at: string | null;
  message: string | null;
  report: null | {
    records: number;
    queries: number;
    per_edit: EditReport[];
    overall: { recall_at_1: number; recall_at_10: number };
    latency_ms: { p50: number; p95: number };
    rerank_candidates: number;
  };
}

const active = (e: Evaluation | undefined) => e?.state === 'queued' || e?.state === 'running';
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

export function EvaluationPanel({ serviceId, serviceName }: { serviceId: string; serviceName: string }) {
  const { t } = useI18n();
  const path = `/customer_services/_0000172/${serviceId}/evaluation`;
  const evaluation = useLoad(() => api<Evaluation>(path), [serviceId], 1500, active);
  const [sampleSize, setSampleSize] = useState('50');
  const start = useAction();
  const e = evaluation.data;
  return (
    <Section title={`${t('evaluation')}: ${serviceName}`}>
      <p class="muted">{t('evaluationHint')}</p>
      <form
        class="row"
        onSubmit={(ev) => {
          ev.preventDefault();
          void start.run(async () => {
            await api(path, 'POST', { sample_size: Number(sampleSize) });
            evaluation.reload();
          });
        }}
      >
        <Field label={t('sampleSize')}>
          <input id="evaluation-sample" type="number" min={1} max={500} required value={sampleSize} onInput={(ev) => setSampleSize((ev.currentTarget as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary" disabled={start.busy || active(e)}>
          {t('startEvaluation')}
        </button>
      </form>
      <ErrorNote error={start.error ?? evaluation.error} />
      {e && e.state !== 'none' && (
        <div class="evaluation" data-state={e.state}>
          <p>
            {t('state')}: <strong>{t(e.state === 'done' ? 'done' : e.state === 'failed' ? 'failed' : e.state === 'running' ? 'running' : 'pending')}</strong> · {e.progress.done}/{e.progress.total}
            {e.message ? ` — ${e.message}` : ''}
          </p>
          <ProgressBar label={`${serviceName} ${t('evaluation')}`} total={Math.max(1, e.progress.total)} parts={[{ value: e.progress.done, kind: 'info' }]} />
          {e.report && (
            <table class="evaluation-report">
              <caption>
                {t('latency')}: p50 {e.report.latency_ms.p50} ms · p95 {e.report.latency_ms.p95} ms · {e.report.records} {t('pictures').toLowerCase()}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{t('edit')}</th>
                  <th scope="col">{t('queries')}</th>
                  <th scope="col">recall@1</th>
                  <th scope="col">recall@10</th>
                </tr>
              </thead>
              <tbody>
                {e.report.per_edit.map((r) => (
                  <tr key={r.edit}>
                    <td class="mono">{r.edit}</td>
                    <td>{r.queries}</td>
                    <td>{pct(r.recall_at_1)}</td>
                    <td>{pct(r.recall_at_10)}</td>
                  </tr>
                ))}
                <tr class="overall">
                  <th scope="row">{t('overall')}</th>
                  <td>{e.report.queries}</td>
                  <td>{pct(e.report.overall.recall_at_1)}</td>
                  <td>{pct(e.report.overall.recall_at_10)}</td>
                </tr>
              </tbody>
            </table>
          )}
        </div>
      )}
    </Section>
  );
}
