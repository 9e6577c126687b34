import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { parseSearchParams, SEARCH_LIMITS } from './search-params.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? `${err.status}/${err.code}` : String(err);
  }
  return 'ok';
};

describe('search parameters', () => {
  it('defaults: 20 results, first page, whole image, no filters', () => {
    expect(parseSearchParams({}, true)).toEqual({ count: 20, page: 0, loc: null, tags: null, keywords: [], minPrice: null, maxPrice: null, rerank: true, regions: 'auto' });
  });

  it('parses count, page, loc, tags and the product filters', () => {
    const p = parseSearchParams({ count: ' 5 ', page: '2', loc: '0.1-0.2-0.5-0.5', tags: 'a|b', keywords: 'Red shoe', min_price: '10', max_price: '99.5' }, true);
    expect(p).toMatchObject({ count: 5, page: 2, loc: [0.1, 0.2, 0.5, 0.5], keywords: ['red', 'shoe'], minPrice: 10, maxPrice: 99.5 });
    expect(p.tags).toEqual({ kind: 'and', of: [{ kind: 'tag', tag: 'a' }, { kind: 'tag', tag: 'b' }] });
    expect(parseSearchParams({ loc: '[0, 0, 1, 1]' }, false).loc).toEqual([0, 0, 1, 1]);
    expect(parseSearchParams({ keywords: '["Red", "shoe"]' }, true).keywords).toEqual(['red', 'shoe']);
    expect(parseSearchParams({ tags: '{"or": ["x", {"and": ["y", "z"]}]}' }, false).tags?.kind).toBe('or');
  });

  it('reads the rerank extension: 0/false/off skip re-ranking, anything else but 1/true/on is refused', () => {
    for (const v of ['0', 'false', ' OFF ']) expect(parseSearchParams({ rerank: v }, false).rerank).toBe(false);
    for (const v of ['1', 'true', 'on', '']) expect(parseSearchParams({ rerank: v }, false).rerank).toBe(true);
    expect(() => parseSearchParams({ rerank: 'maybe' }, false)).toThrow(/rerank/);
  });

  it('reads the regions extension: auto by default, off, all; anything else is refused with 400/5001', () => {
    for (const v of ['', 'auto', '1', 'on']) expect(parseSearchParams({ regions: v }, false).regions).toBe('auto');
    for (const v of ['0', 'off', ' False ']) expect(parseSearchParams({ regions: v }, false).regions).toBe('off');
    expect(parseSearchParams({ regions: ' ALL ' }, true).regions).toBe('all');
    for (const v of ['maybe', 'all'.padEnd(5000, ' ') + 'x', '\u0000all', 'a\u0301ll']) expect(code(() => parseSearchParams({ regions: v }, false))).toBe('400/5001');
  });

  it('answers any regions value with a mode or 400/5001, never another error (hostile input)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 2000 }), fc.constantFrom('all', 'off', 'auto', ' all', 'ALL\t')), (value) => {
        const answer = code(() => parseSearchParams({ regions: value }, false));
        expect(['ok', '400/5001']).toContain(answer);
        if (answer === 'ok') expect(['auto', 'off', 'all']).toContain(parseSearchParams({ regions: value }, false).regions);
      }),
    );
  });

  it('ignores product parameters on image search', () => {
    expect(parseSearchParams({ page: 'x', min_price: 'y', keywords: 'k' }, false)).toMatchObject({ page: 0, minPrice: null, keywords: [] });
  });

  it('answers at most maxCount results for a larger count', () => {
    expect(parseSearchParams({ count: String(SEARCH_LIMITS.maxCount + 1) }, false).count).toBe(SEARCH_LIMITS.maxCount);
    expect(parseSearchParams({ count: '100000' }, true).count).toBe(SEARCH_LIMITS.maxCount);
  });

  it('refuses bad values with 400/5001', () => {
    for (const fields of <Record<string, string>[]>[
      { count: '0' },
      { count: '2.5' },
      { count: '-1' },
      { count: 'many' },
      { loc: '0.5-0.5-0.6-0.6' },
      { loc: '1-2-3' },
      { tags: '{"and": []}' },
      { tags: '{not json' },
    ]) {
      expect(code(() => parseSearchParams(fields, false)), JSON.stringify(fields)).toBe('400/5001');
    }
    expect(code(() => parseSearchParams({ page: '-1' }, true))).toBe('400/5001');
    expect(code(() => parseSearchParams({ count: '100', page: '20' }, true))).toBe('400/5001');
    expect(code(() => parseSearchParams({ count: '100', page: '19' }, true))).toBe('ok');
    expect(code(() => parseSearchParams({ min_price: 'cheap' }, true))).toBe('400/5001');
  });
});
