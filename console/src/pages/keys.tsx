/**
 * The account's own access keys (`/iris/keys`, scope admin-of-account): create with scopes and an expiry
 * (the id and secret are shown once), rotate, disable, delete; and the account's signature requirement.
 */
import { useState } from 'preact/hooks';
import { KEY_SCOPES } from '../../../shared/src/key-scopes.js';
import { api } from '../api/client.js';
import { ErrorNote, Field, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

interface AccountKey {
  key_ref: string;
  key_id_hint: string;
  key_id?: string;
  secret?: string;
  name: string | null;
  enabled: boolean;
  signature_required: boolean;
  scopes: string[] | null;
  expires_at: string | null;
  expired: boolean;
  current: boolean;
}

/** The one place a secret is ever shown: the answer that made the key. */
function Once({ keyAnswer }: { keyAnswer: AccountKey }) {
  const { t } = useI18n();
  return (
    <div role="status" class="card" data-testid="secret-once">
      <p>
        {t('keyIdOnce')} <code data-testid="new-key-id">{keyAnswer.key_id}</code>
      </p>
      <p>
        {t('secretOnce')} <code data-testid="new-secret">{keyAnswer.secret}</code>
      </p>
    </div>
  );
}

export function KeysPage() {
  const { t } = useI18n();
  const keys = useLoad(() => api<{ results: AccountKey[] }>('/iris/keys').then((r) => r.results), []);
  const settings = useLoad(() => api<{ signature_required: boolean }>('/iris/account'), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expiry, setExpiry] = useState('');
  const [shown, setShown] = useState<AccountKey>();
  const action = useAction();
  const change = (fn: () => Promise<unknown>) => void action.run(async () => (await fn(), keys.reload()));
  return (
    <div class="page">
      <h1>{t('navKeys')}</h1>
      <ErrorNote error={action.error ?? keys.error ?? settings.error} />
      {shown && <Once keyAnswer={shown} />}
      <Section title={t('createKey')}>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const body = {
                ...(name.trim() ? { name } : {}),
                ...(scopes.length ? { scopes } : {}),
                ...(expiry ? { expires_at: `${expiry}T00:00:00Z` } : {}),
              };
              setShown(await api<AccountKey>('/iris/keys', 'POST', body));
              setName('');
              setScopes([]);
              setExpiry('');
              keys.reload();
            });
          }}
        >
          <Field label={t('name')}>
            <input name="key-name" maxLength={100} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <fieldset>
            <legend>{t('scopes')}</legend>
            {KEY_SCOPES.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  name={`scope-${scope}`}
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes((e.currentTarget as HTMLInputElement).checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                />{' '}
                {scope}
              </label>
            ))}
          </fieldset>
          <Field label={t('expires')}>
            <input type="date" name="key-expiry" value={expiry} onInput={(e) => setExpiry((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <button type="submit" disabled={action.busy}>
            {t('create')}
          </button>
        </form>
      </Section>
      <Section title={t('keys')}>
        <table>
          <thead>
            <tr>
              <th>{t('name')}</th>
              <th>{t('keyRef')}</th>
              <th>{t('scopes')}</th>
              <th>{t('expires')}</th>
              <th>{t('status')}</th>
              <th>{t('actions')}</th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.map((k) => (
              <tr key={k.key_ref} data-key-ref={k.key_ref}>
                <td>
                  {k.name ?? '—'} {k.current && <em>({t('thisKey')})</em>}
                </td>
                <td>
                  <code>{k.key_ref}</code> <span class="muted mono">{k.key_id_hint}…</span>
                </td>
                <td>{k.scopes ? k.scopes.join(', ') : t('allScopes')}</td>
                <td>{k.expires_at ?? t('never')}</td>
                <td>{k.expired ? t('expired') : k.enabled ? t('enabled') : t('disabled')}</td>
                <td>
                  <button type="button" onClick={() => change(async () => setShown((await api<{ key: AccountKey }>(`/iris/keys/${k.key_ref}/rotate`, 'POST', {})).key))}>
                    {t('rotate')}
                  </button>{' '}
                  <button type="button" onClick={() => change(() => api(`/iris/keys/${k.key_ref}/${k.enabled ? 'disable' : 'enable'}`, 'POST'))}>
                    {k.enabled ? t('disable') : t('enable')}
                  </button>{' '}
                  <button type="button" onClick={() => confirm(t('confirmDelete')) && change(() => api(`/iris/keys/${k.key_ref}`, 'DELETE'))}>
                    {t('delete')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title={t('signatureRequired')}>
        {settings.data && (
          <label>
            <input
              type="checkbox"
              name="account-signatures"
              checked={settings.data.signature_required}
              onChange={(e) => {
                const required = (e.currentTarget as HTMLInputElement).checked;
                void action.run(async () => (await api('/iris/account', 'PUT', { signature_required: required }), settings.reload()));
              }}
            />{' '}
            {t('accountSignatures')}
          </label>
        )}
      </Section>
    </div>
  );
}
