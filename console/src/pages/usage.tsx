/**
 * The account's usage in this region (the address the console is served from), per day and service, beside
 * its quotas: what it holds now against the storage quotas, and every quota's value. Counters reach the
 * figures within the backend's flush interval (a few seconds).
 */
import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { UsageReport } from '@iris/shared';
import { api } from '../api/client.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

type Usage = z.infer<typeof UsageReport>;

const DAY_MS = 86_400_000;
const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const COLUMNS = ['calls', 'pictures_analysed', 'pictures_stored', 'bytes_stored', 'inference_seconds', 'batch_lines'] as const;

function amount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

export function UsagePage() {
  const { t } = useI18n();
  const [from, setFrom] = useState(day(Date.now() - 29 * DAY_MS));
  const [to, setTo] = useState(day(Date.now()));
  // Refreshed while shown: the backends add their counts every few seconds.
  const usage = useLoad(() => api<Usage>(`/iris/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`), [from, to], 5000);
  const u = usage.data;
  return (
    <div class="page">
      <h1>{t('navUsage')}</h1>
      <Section title={t('quotas')}>
        <ErrorNote error={usage.error} />
        {u && (
          <div id="usage-stored" data-records={u.stored.records} data-bytes={u.stored.bytes}>
            <p>
              {t('region')}: <strong>{u.region}</strong>
            </p>
            <p>
              {t('storedRecords')}: {u.stored.records} / {u.quotas.records}
            </p>
            <ProgressBar label={t('storedRecords')} total={u.quotas.records} parts={[{ value: u.stored.records, kind: 'info' }]} />
            <p>
              {t('storedBytes')}: {u.stored.bytes} / {u.quotas.stored_bytes}
            </p>
            <ProgressBar label={t('storedBytes')} total={u.quotas.stored_bytes} parts={[{ value: u.stored.bytes, kind: 'info' }]} />
            <table aria-label={t('quotas')}>
              <tbody>
                {Object.entries(u.quotas).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row" class="mono">{name}</th>
                    <td>{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title={t('usageByDay')}>
        <form class="row" onSubmit={(e) => e.preventDefault()}>
          <Field label={t('from')}>
            <input id="usage-from" type="date" value={from} max={to} onChange={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <Field label={t('to')}>
            <input id="usage-to" type="date" value={to} min={from} onChange={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
          </Field>
        </form>
        {u && u.results.length === 0 && <p class="muted">{t('none')}</p>}
        {u && u.results.length > 0 && (
          <table id="usage-days" aria-label={t('usageByDay')}>
            <thead>
              <tr>
                <th scope="col">{t('day')}</th>
                <th scope="col">{t('service')}</th>
                {COLUMNS.map((c) => (
                  <th scope="col" key={c}>
                    {t(`usage_${c}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {u.results.map((r) => (
                <tr key={`${r.day}-${r.service}`} data-service={r.service}>
                  <td>{r.day}</td>
                  <td class="mono">{r.service}</td>
                  {COLUMNS.map((c) => (
                    <td key={c} data-measure={c}>
                      {amount(r[c])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={2}>
                  {t('total')}
                </th>
                {COLUMNS.map((c) => (
                  <td key={c}>{amount(u.totals[c])}</td>
                ))}
              </tr>
            </tfoot>
          </table>
        )}
      </Section>
    </div>
  );
}
