import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from '../session.js';
import { MESSAGES, type MessageKey } from './messages.js';

export interface I18n {
  lang: Lang;
  t: (key: MessageKey) => string;
  setLang: (lang: Lang) => void;
  /** A status word of the API (`downloaded`, `running`, …) in the console's language; unknown words as they are. */
  status: (word: string) => string;
}

export function makeI18n(lang: Lang, setLang: (lang: Lang) => void): I18n {
  const t = (key: MessageKey) => MESSAGES[lang][key] ?? MESSAGES.en[key];
  return { lang, setLang, t, status: (word) => (Object.hasOwn(MESSAGES.en, word) ? t(word as MessageKey) : word) };
}

export const I18nContext = createContext<I18n>(makeI18n('en', () => {}));

export function useI18n(): I18n {
  return useContext(I18nContext);
}
