/** The account's audit log (`/iris/audit`, scope admin-of-account): newest first, older pages by cursor. */
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { ErrorNote, Section } from '../components/bits.js';
import { useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

interface AuditEntry {
  id: string;
  time: string;
  actor: string;
  key_ref: string | null;
  request_id: string;
  method: string;
  path: string;
  target_id: string | null;
  status: number;
  outcome: string;
}

export function AuditPage() {
  const { t } = useI18n();
  const [cursor, setCursor] = useState<string>();
  const page = useLoad(() => api<{ results: AuditEntry[]; next_cursor: string | null }>(`/iris/audit?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), [cursor]);
  return (
    <div class="page">
      <h1>{t('navAudit')}</h1>
      <ErrorNote error={page.error} />
      <Section
        title={t('navAudit')}
        actions={
          <span>
            <button type="button" disabled={!cursor} onClick={() => setCursor(undefined)}>
              {t('newest')}
            </button>{' '}
            <button type="button" disabled={!page.data?.next_cursor} onClick={() => setCursor(page.data?.next_cursor ?? undefined)}>
              {t('older')}
            </button>
          </span>
        }
      >
        {page.data && page.data.results.length === 0 && <p>{t('none')}</p>}
        <table>
          <thead>
            <tr>
              <th>{t('time')}</th>
              <th>{t('actor')}</th>
              <th>{t('method')}</th>
              <th>{t('path')}</th>
              <th>{t('target')}</th>
              <th>{t('outcome')}</th>
              <th>{t('requestId')}</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.results.map((e) => (
              <tr key={e.id}>
                <td>{e.time}</td>
                <td>
                  {e.actor} {e.key_ref && <code>{e.key_ref}</code>}
                </td>
                <td>{e.method}</td>
                <td>
                  <code>{e.path}</code>
                </td>
                <td>{e.target_id && <code>{e.target_id}</code>}</td>
                <td>
                  {e.outcome} ({e.status})
                </td>
                <td class="mono">{e.request_id}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}
