/**
 * Product search filters: keywords and price bounds, as the clients' own tests assert them: keep results
 * whose keywords contain every given word, price > min_price, price ≤ max_price.
 */
import type { ProductAttributes, ProductFilter } from '../../vectors/vector-store.js';

/** Words of a keywords text: split on white space and punctuation, lower case, Unicode-normalised. */
export function keywordWords(text: string): string[] {
  return [
    ...new Set(
      text
        .normalize('NFKC')
        .toLowerCase()
        .split(/[\s,;|/]+/u)
        .filter(Boolean),
    ),
  ];
}

// Scripts written without spaces between words: a query word there matches as a substring.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A record's product attributes as a vector store keeps them (to filter in SQL, pgvector). */
export function productAttributes(price: string, keywords: string): ProductAttributes {
  return { price: parsePrice(price), words: keywordWords(keywords), text: keywords.normalize('NFKC').toLowerCase() };
}

/** The product filter of a query for a vector store: same semantics as `hasKeywords` and `inPriceRange`. */
export function productFilter(words: readonly string[], minPrice: number | null, maxPrice: number | null): ProductFilter {
  return { minPrice, maxPrice, keywords: words.map((word) => ({ word, substring: UNSPACED.test(word) })) };
}

/** True when every word occurs in the keywords: as a whole word, or anywhere for Chinese/Japanese/Thai words. */
export function hasKeywords(keywords: string, words: readonly string[]): boolean {
  if (!words.length) return true;
  const own = new Set(keywordWords(keywords));
  const text = keywords.normalize('NFKC').toLowerCase();
  return words.every((word) => own.has(word) || (UNSPACED.test(word) && text.includes(word)));
}

/** A price as a number: plain decimal text, optionally with a currency sign or thousands commas; null if none. */
export function parsePrice(text: string): number | null {
  const cleaned = text.trim().replace(/^[^\d+\-.]+/u, '').replace(/,(?=\d{3}(\D|$))/g, '');
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(cleaned)) return null;
  const n = Number(cleaned);
  return Number.isFinite(n) ? n : null;
}

export function inPriceRange(price: string, min: number | null, max: number | null): boolean {
  if (min === null && max === null) return true;
  const value = parsePrice(price);
  if (value === null) return false;
  return (min === null || value > min) && (max === null || value <= max);
}
