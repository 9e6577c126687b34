/** Webhooks: register an endpoint (its secret shown once), the list with each endpoint's last delivery, delete. */
import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { RegisteredWebhook, WebhookList } from '@iris/shared';
import { WEBHOOK_EVENTS } from '../../../shared/src/webhook-events.js';
import { api } from '../api/client.js';
import { ErrorNote, Field, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

type Endpoint = z.infer<typeof WebhookList>['results'][number];

function lastStatus(e: Endpoint): string {
  const d = e.last_delivery;
  if (!d) return '—';
  const http = d.http_status === null ? '' : ` (HTTP ${d.http_status})`;
  const retry = d.state === 'pending' && d.next_attempt_at ? ` → ${d.next_attempt_at}` : '';
  return `${d.state}${http}, ${d.attempts}×${retry}${d.error ? `: ${d.error}` : ''}`;
}

export function WebhooksPage() {
  const { t } = useI18n();
  const endpoints = useLoad(() => api<z.infer<typeof WebhookList>>('/iris/webhooks').then((l) => l.results), [], 5000, (list) => list.some((e) => e.pending_deliveries > 0));
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [secret, setSecret] = useState<string>();
  const create = useAction();
  const removing = useAction();
  return (
    <div class="page">
      <h1>{t('navWebhooks')}</h1>
      <Section title={t('registerWebhook')}>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const made = await api<z.infer<typeof RegisteredWebhook>>('/iris/webhooks', 'POST', { url, events });
              setSecret(made.secret);
              setUrl('');
              endpoints.reload();
            });
          }}
        >
          <Field label={t('endpointUrl')}>
            <input type="url" required maxLength={2048} placeholder="https://" value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <fieldset>
            <legend>{t('events')}</legend>
            {WEBHOOK_EVENTS.map((name) => (
              <label key={name}>
                <input
                  type="checkbox"
                  checked={events.includes(name)}
                  onChange={(e) => setEvents((now) => ((e.currentTarget as HTMLInputElement).checked ? [...now, name] : now.filter((n) => n !== name)))}
                />{' '}
                <span class="mono">{name}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={create.busy || events.length === 0}>
            {t('register')}
          </button>
        </form>
        <ErrorNote error={create.error} />
        {secret && (
          <p role="status">
            {t('signingSecretOnce')} <code class="mono">{secret}</code>
          </p>
        )}
      </Section>
      <Section title={t('endpoints')}>
        <ErrorNote error={endpoints.error ?? removing.error} />
        {endpoints.data?.length === 0 && <p class="muted">{t('none')}</p>}
        {endpoints.data && endpoints.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">{t('events')}</th>
                <th scope="col">{t('lastDelivery')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.map((e) => (
                <tr key={e.id}>
                  <td class="mono">{e.url}</td>
                  <td class="mono">{e.events.join(', ')}</td>
                  <td>{lastStatus(e)}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`${t('delete')} ${e.url}`}
                      onClick={() => {
                        if (!confirm(t('confirmDelete'))) return;
                        void removing.run(async () => {
                          await api(`/iris/webhooks/${encodeURIComponent(e.id)}`, 'DELETE');
                          endpoints.reload();
                        });
                      }}
                    >
                      {t('delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </div>
  );
}
