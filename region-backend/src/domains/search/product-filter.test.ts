import { describe, expect, it } from 'vitest';
import { hasKeywords, inPriceRange, keywordWords, parsePrice } from './product-filter.js';

describe('product filters', () => {
  it('splits keywords into lower-case words', () => {
    expect(keywordWords('  Red  SHOE, leather|summer/sale ')).toEqual(['red', 'shoe', 'leather', 'summer', 'sale']);
    expect(keywordWords('')).toEqual([]);
    expect(keywordWords('ＲＥＤ')).toEqual(['red']); // full-width letters fold
  });

  it('keeps records whose keywords contain every word', () => {
    expect(hasKeywords('red leather shoe', ['shoe', 'red'])).toBe(true);
    expect(hasKeywords('red leather shoe', ['shoe', 'blue'])).toBe(false);
    expect(hasKeywords('Red Shoe', keywordWords('red'))).toBe(true);
    // Whole words only for spaced scripts: "shoe" is not in "shoelace".
    expect(hasKeywords('shoelace', ['shoe'])).toBe(false);
    // Chinese words match inside unspaced text.
    expect(hasKeywords('红色皮鞋 夏季', ['皮鞋'])).toBe(true);
    expect(hasKeywords('红色皮鞋', ['凉鞋'])).toBe(false);
    expect(hasKeywords('', [])).toBe(true);
  });

  it('reads prices', () => {
    expect(parsePrice('12.5')).toBe(12.5);
    expect(parsePrice(' 100 ')).toBe(100);
    expect(parsePrice('¥1,299.00')).toBe(1299);
    expect(parsePrice('$.5')).toBe(0.5);
    expect(parsePrice('-3')).toBe(-3);
    expect(parsePrice('')).toBeNull();
    expect(parsePrice('cheap')).toBeNull();
    expect(parsePrice('12abc')).toBeNull();
  });

  it('keeps price > min and price ≤ max; no price fails a price filter', () => {
    expect(inPriceRange('10', 10, null)).toBe(false);
    expect(inPriceRange('10.01', 10, null)).toBe(true);
    expect(inPriceRange('20', null, 20)).toBe(true);
    expect(inPriceRange('20.5', null, 20)).toBe(false);
    expect(inPriceRange('15', 10, 20)).toBe(true);
    expect(inPriceRange('', 10, null)).toBe(false);
    expect(inPriceRange('', null, null)).toBe(true);
  });
});
