/**
 * A label a detect or classify service answers: `id` is the stable key used in code and manifests, `puid`
 * the stable label id answered on the wire, `en`/`zh` the `type`/`category` text per language.
 */
import type { Lang } from '../catalogue.js';

export interface ServiceLabel {
  id: string;
  puid: string;
  en: string;
  zh: string;
}

/** Builds a label table from `[id, en, zh]` rows; puids are `<namespace>.<id>` so they never depend on order. */
export function labelTable(namespace: string, rows: readonly (readonly [string, string, string])[]): readonly ServiceLabel[] {
  const seen = new Set<string>();
  return rows.map(([id, en, zh]) => {
    if (seen.has(id)) throw new Error(`label ${namespace}.${id} listed twice`);
    seen.add(id);
    return { id, puid: `${namespace}.${id}`, en, zh };
  });
}

export function labelText(label: Pick<ServiceLabel, 'en' | 'zh'>, lang: Lang): string {
  return lang === 'zh' ? label.zh : label.en;
}

export function labelIndex(table: readonly ServiceLabel[]): ReadonlyMap<string, ServiceLabel> {
  return new Map(table.map((l) => [l.id, l]));
}
