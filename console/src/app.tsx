/** The console shell: sign-in gate, navigation, language switch, and the page of the current route. */
import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { setApiLang } from './api/client.js';
import { I18nContext, makeI18n } from './i18n/i18n.js';
import type { MessageKey } from './i18n/messages.js';
import { AnalysisPage } from './pages/analysis.js';
import { AuditPage } from './pages/audit.js';
import { BatchPage } from './pages/batch.js';
import { DataSetsPage } from './pages/data-sets.js';
import { KeysPage } from './pages/keys.js';
import { OperatorPage } from './pages/operator.js';
import { SearchPage } from './pages/search.js';
import { ServicesPage } from './pages/services.js';
import { SetDetailPage } from './pages/set-detail.js';
import { SignInPage } from './pages/sign-in.js';
import { TrainingPage } from './pages/training.js';
import { WebhooksPage } from './pages/webhooks.js';
import { UsagePage } from './pages/usage.js';
import { href, useRoute } from './router.js';
import { session, type Lang } from './session.js';

const NAV: [string, MessageKey][] = [
  ['sets', 'navSets'],
  ['search', 'navSearch'],
  ['analysis', 'navAnalysis'],
  ['training', 'navTraining'],
  ['batch', 'navBatch'],
  ['services', 'navServices'],
  ['keys', 'navKeys'],
  ['audit', 'navAudit'],
  ['webhooks', 'navWebhooks'],
  ['usage', 'navUsage'],
  ['operator', 'navOperator'],
];

function Page({ route }: { route: string[] }) {
  const [name, ...rest] = route;
  switch (name) {
    case 'search':
      return <SearchPage />;
    case 'analysis':
      return <AnalysisPage />;
    case 'training':
      return <TrainingPage />;
    case 'batch':
      return <BatchPage />;
    case 'services':
      return <ServicesPage />;
    case 'keys':
      return <KeysPage />;
    case 'audit':
      return <AuditPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'usage':
      return <UsagePage />;
    case 'sets':
      return rest.length === 2 ? <SetDetailPage kind={rest[0] as never} id={rest[1]!} /> : <DataSetsPage />;
    default:
      return <DataSetsPage />;
  }
}

export function App() {
  const [lang, setLangState] = useState<Lang>(session.lang());
  const [keyId, setKeyId] = useState(session.keyId());
  const [adminToken, setAdminToken] = useState(session.adminToken());
  const route = useRoute();
  const i18n = useMemo(
    () =>
      makeI18n(lang, (next) => {
        session.setLang(next);
        setLangState(next);
      }),
    [lang],
  );
  setApiLang(lang);
  // In the same frame as the text it describes (a layout effect): screen readers and the browser's own
  // hyphenation or translation see the new language together with the new words, never one frame apart.
  useLayoutEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = i18n.t('appName');
  }, [lang]);

  const signOut = () => {
    session.setKeyId(null);
    session.setAdminToken(null);
    setKeyId(null);
    setAdminToken(null);
  };
  const operatorRoute = route[0] === 'operator';
  const signedIn = operatorRoute ? Boolean(adminToken) : Boolean(keyId);
  const { t } = i18n;

  return (
    <I18nContext.Provider value={i18n}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">{t('appName')}</strong>
        <nav aria-label={t('mainNav')}>
          <ul>
            {NAV.map(([path, key]) => (
              <li key={path}>
                <a href={href(path)} aria-current={(route[0] ?? 'sets') === path ? 'page' : undefined}>
                  {t(key)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="top-right">
          <label>
            <span class="visually-hidden">{t('language')}</span>
            <select id="language" aria-label={t('language')} value={lang} onChange={(e) => i18n.setLang((e.currentTarget as HTMLSelectElement).value as Lang)}>
              <option value="en">English</option>
              <option value="zh">中文</option>
            </select>
          </label>
          {(keyId || adminToken) && (
            <button type="button" onClick={signOut}>
              {t('signOut')}
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {signedIn ? (
          operatorRoute ? <OperatorPage /> : <Page route={route} />
        ) : (
          <SignInPage
            operator={operatorRoute}
            onKey={(k) => {
              session.setKeyId(k);
              setKeyId(k);
            }}
            onAdmin={(token) => {
              session.setAdminToken(token);
              setAdminToken(token);
            }}
          />
        )}
      </main>
    </I18nContext.Provider>
  );
}
