import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '@iris/shared';
import { withinSync } from '../../test/support/time-bound.js';
import { evaluateTagFilter, parseTagFilter } from './tag-filter.js';

const tagText = fc.string({ unit: fc.constantFrom('a', 'b', '|', ' ', '{', '}', '[', ']', '"', ':', ',', 'and', 'or', '\\'), maxLength: 8192 });

describe('tag expressions on hostile text', () => {
  it('parse to a filter, null or a 400 within the time bound, and evaluate in bounded time', () => {
    fc.assert(
      fc.property(fc.oneof(tagText, fc.json({ maxDepth: 12 })), (text) => {
        withinSync(() => {
          let filter;
          try {
            filter = parseTagFilter(text);
          } catch (err) {
            if (!isApiError(err)) throw err;
            return;
          }
          if (filter) evaluateTagFilter(filter, (tag) => tag.length % 2 === 0);
        }, 200, 'parseTagFilter');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses nesting past the limit and huge leaf lists without recursion trouble', () => {
    let deep = '"x"';
    for (let i = 0; i < 5_000; i++) deep = `{"and":[${deep}]}`;
    expect(() => withinSync(() => parseTagFilter(deep), 500)).toThrow();
    const many = JSON.stringify({ or: Array.from({ length: 100_000 }, (_, i) => `t${i}`) });
    expect(() => withinSync(() => parseTagFilter(many), 500)).toThrow();
    expect(withinSync(() => parseTagFilter('|'.repeat(100_000)), 500)).toBeNull();
  });
});
