import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from '../session.js';
import { MESSAGES, type MessageKey } from './messages.js';

export interface I18n {
  lang: Lang;
  t: (key: MessageKey) => string;
  setLang: (lang: Lang) => void;
}

export function makeI18n(lang: Lang, setLang: (lang: Lang) => void): I18n {
  return { lang, setLang, t: (key) => MESSAGES[lang][key] ?? MESSAGES.en[key] };
}

export const I18nContext = createContext<I18n>(makeI18n('en', () => {}));

export function useI18n(): I18n {
  return useContext(I18nContext);
}
