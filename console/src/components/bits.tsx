/** Small shared pieces: progress bars, error notes, the pager. */
import type { ComponentChildren } from 'preact';
import { useI18n } from '../i18n/i18n.js';

export function ProgressBar({ label, parts, total }: { label: string; parts: { value: number; kind: 'ok' | 'bad' | 'info' }[]; total: number }) {
  const done = parts.reduce((sum, p) => sum + p.value, 0);
  const pct = (v: number) => (total > 0 ? (100 * v) / total : 0);
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
      {parts.map((p, i) => (
        <span key={i} class={`progress-${p.kind}`} style={{ width: `${pct(p.value)}%` }} />
      ))}
    </div>
  );
}

export function ErrorNote({ error }: { error: string | undefined }) {
  const { t } = useI18n();
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {t('error')}: {error}
    </p>
  );
}

export function Pager({ page, total, count, onPage }: { page: number; total: number; count: number; onPage: (page: number) => void }) {
  const { t } = useI18n();
  const pages = Math.max(1, Math.ceil(total / count));
  return (
    <nav class="pager" aria-label={t('page')}>
      <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>
        {t('previous')}
      </button>
      <span>
        {t('page')} {page + 1} {t('of')} {pages}
      </span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>
        {t('next')}
      </button>
    </nav>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
