import { useState } from 'preact/hooks';
import { admin, api } from '../api/client.js';
import { ErrorNote, Field } from '../components/bits.js';
import { useAction } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';
import { session } from '../session.js';

/** Sign in with an access key (checked with a harmless list call), or, on the operator page, with the admin token. */
export function SignInPage({ operator, onKey, onAdmin }: { operator: boolean; onKey: (keyId: string) => void; onAdmin: (token: string) => void }) {
  const { t } = useI18n();
  const [value, setValue] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    const v = value.trim();
    void action.run(async () => {
      if (operator) {
        session.setAdminToken(v);
        try {
          await admin('/health');
        } catch (err) {
          session.setAdminToken(null);
          throw err;
        }
        onAdmin(v);
      } else {
        await api('/image_sets/_0000014', 'GET', undefined, v);
        onKey(v);
      }
    });
  };
  return (
    <form class="card sign-in" onSubmit={submit}>
      <h1>{operator ? t('operatorSignIn') : t('signIn')}</h1>
      <Field label={operator ? t('adminToken') : t('accessKey')}>
        <input id="sign-in-key" type={operator ? 'password' : 'text'} required autoComplete="off" value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
      </Field>
      <p class="muted">{t('signInHint')}</p>
      <button type="submit" class="primary" disabled={action.busy}>
        {t('signIn')}
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}
