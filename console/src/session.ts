/** What the console remembers for this browser tab only (sessionStorage): the access key, the admin token, the language. */
export type Lang = 'en' | 'zh';

const KEY = 'iris.key';
const ADMIN = 'iris.admin';
const LANG = 'iris.lang';

function read(name: string): string | null {
  try {
    return sessionStorage.getItem(name);
  } catch {
    return null;
  }
}

function write(name: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(name);
    else sessionStorage.setItem(name, value);
  } catch {
    // storage disabled: the session lasts as long as the page
  }
}

export const session = {
  keyId: () => read(KEY),
  setKeyId: (value: string | null) => write(KEY, value),
  adminToken: () => read(ADMIN),
  setAdminToken: (value: string | null) => write(ADMIN, value),
  lang: (): Lang => {
    const saved = read(LANG);
    if (saved === 'zh' || saved === 'en') return saved;
    return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  },
  setLang: (value: Lang) => write(LANG, value),
};
