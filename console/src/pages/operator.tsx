/** Operator mode (admin token): accounts, access keys, quotas, service grants and each region's logo library, through /admin. */
import { useState } from 'preact/hooks';
import { REGIONS } from '../../../shared/src/catalogue.js';
import { admin, form } from '../api/client.js';
import { ErrorNote, Field, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages.js';

interface Account {
  id: number;
  name: string;
  disabled: boolean;
  created_at: string;
}
interface Key {
  key_id: string;
  enabled: boolean;
  signature_required: boolean;
  created_at: string;
  secret?: string;
}
interface Grant {
  service_id: string;
  name: string;
  granted: boolean;
  explicit: boolean;
}
interface Logo {
  id: number;
  brand: string;
  brand_zh?: string;
  n_images: number;
}
const QUOTA_FIELDS = ['image_sets', 'training_sets', 'custom_services', 'daily_batch_tasks'] as const;

function AccountPanel({ account }: { account: Account }) {
  const { t } = useI18n();
  const base = `/accounts/${account.id}`;
  const keys = useLoad(() => admin<{ results: Key[] }>(`${base}/keys`).then((r) => r.results), [account.id]);
  const quotas = useLoad(() => admin<Record<string, number>>(`${base}/quotas`), [account.id]);
  const grants = useLoad(() => admin<{ results: Grant[] }>(`${base}/grants`).then((r) => r.results), [account.id]);
  const [secret, setSecret] = useState<Key>();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const action = useAction();
  return (
    <div>
      <h3>
        {account.name} <span class="muted mono">#{account.id}</span>
      </h3>
      <ErrorNote error={action.error ?? keys.error ?? quotas.error ?? grants.error} />
      <h4>{t('keys')}</h4>
      <ul>
        {keys.data?.map((k) => (
          <li key={k.key_id}>
            <code>{k.key_id}</code> {k.enabled ? t('enabled') : t('disabled')}{' '}
            <button type="button" onClick={() => void action.run(async () => (await admin(`/keys/${k.key_id}/${k.enabled ? 'disable' : 'enable'}`, 'POST'), keys.reload()))}>
              {k.enabled ? t('disable') : t('enable')}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void action.run(async () => (setSecret(await admin<Key>(`${base}/keys`, 'POST', {})), keys.reload()))}>
        {t('createKey')}
      </button>
      {secret && (
        <p role="status">
          <code>{secret.key_id}</code> — {t('secretOnce')} <code>{secret.secret}</code>
        </p>
      )}
      <h4>{t('quotas')}</h4>
      {quotas.data && (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            const body = Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v === '' ? null : Number(v)]));
            void action.run(async () => (await admin(`${base}/quotas`, 'PUT', body), setDraft({}), quotas.reload()));
          }}
        >
          {QUOTA_FIELDS.map((name) => (
            <Field key={name} label={t(`${name}_q` as MessageKey)}>
              <input type="number" min={0} value={draft[name] ?? String(quotas.data![name] ?? '')} onInput={(e) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value })} />
            </Field>
          ))}
          <button type="submit">{t('save')}</button>
        </form>
      )}
      <h4>{t('grants')}</h4>
      <ul class="grants">
        {grants.data?.map((g) => (
          <li key={g.service_id}>
            <label>
              <input
                type="checkbox"
                checked={g.granted}
                onChange={() => void action.run(async () => (await admin(`${base}/grants/${g.service_id}`, g.granted ? 'DELETE' : 'PUT'), grants.reload()))}
              />{' '}
              {g.name} <span class="muted mono">{g.service_id}</span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Logos() {
  const { t } = useI18n();
  const [region, setRegion] = useState<string>(REGIONS[0]!);
  const logos = useLoad(() => admin<{ results: Logo[] }>(`/regions/${region}/logos`).then((r) => r.results ?? []), [region]);
  const [brand, setBrand] = useState('');
  const [brandZh, setBrandZh] = useState('');
  const [files, setFiles] = useState<FileList | null>(null);
  const action = useAction();
  return (
    <Section title={t('logos')}>
      <Field label={t('region')}>
        <select value={region} onChange={(e) => setRegion((e.currentTarget as HTMLSelectElement).value)}>
          {REGIONS.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </Field>
      <ErrorNote error={logos.error ?? action.error} />
      <ul>
        {logos.data?.map((l) => (
          <li key={l.id}>
            {l.brand} {l.brand_zh && `(${l.brand_zh})`} · {l.n_images} {t('images')}{' '}
            <button type="button" class="danger" onClick={() => confirm(t('confirmDelete')) && void action.run(async () => (await admin(`/regions/${region}/logos/${l.id}`, 'DELETE'), logos.reload()))}>
              {t('delete')}
            </button>
          </li>
        ))}
      </ul>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const body = form({ brand, brand_zh: brandZh });
            for (const f of Array.from(files ?? [])) body.append('images', f, f.name);
            await admin(`/regions/${region}/logos`, 'POST', body);
            setBrand('');
            logos.reload();
          });
        }}
      >
        <Field label={t('brand')}>
          <input required maxLength={64} value={brand} onInput={(e) => setBrand((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label={t('brandZh')}>
          <input maxLength={64} value={brandZh} onInput={(e) => setBrandZh((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label={t('images')}>
          <input type="file" accept="image/*" multiple required onChange={(e) => setFiles((e.currentTarget as HTMLInputElement).files)} />
        </Field>
        <button type="submit">{t('register')}</button>
      </form>
    </Section>
  );
}

export function OperatorPage() {
  const { t } = useI18n();
  const accounts = useLoad(() => admin<{ results: Account[] }>('/accounts').then((r) => r.results), []);
  const [selected, setSelected] = useState<number>();
  const [name, setName] = useState('');
  const action = useAction();
  const account = accounts.data?.find((a) => a.id === selected);
  return (
    <div class="page">
      <h1>{t('navOperator')}</h1>
      <div class="split">
        <Section title={t('accounts')}>
          <ErrorNote error={accounts.error ?? action.error} />
          <ul class="account-list">
            {accounts.data?.map((a) => (
              <li key={a.id}>
                <button type="button" aria-pressed={a.id === selected} onClick={() => setSelected(a.id)}>
                  #{a.id} {a.name}
                </button>{' '}
                {a.disabled ? t('disabled') : ''}
                <button type="button" onClick={() => void action.run(async () => (await admin(`/accounts/${a.id}/${a.disabled ? 'enable' : 'disable'}`, 'POST'), accounts.reload()))}>
                  {a.disabled ? t('enable') : t('disable')}
                </button>
              </li>
            ))}
          </ul>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => (await admin('/accounts', 'POST', { name }), setName(''), accounts.reload()));
            }}
          >
            <Field label={t('name')}>
              <input required value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
            </Field>
            <button type="submit">{t('createAccount')}</button>
          </form>
        </Section>
        <Section title={t('account')}>{account ? <AccountPanel key={account.id} account={account} /> : <p class="muted">{t('none')}</p>}</Section>
      </div>
      <Logos />
    </div>
  );
}
