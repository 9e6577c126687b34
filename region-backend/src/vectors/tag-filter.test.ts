import { describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { TAG_FILTER_LIMITS, formatTagFilter, matchesTags, parseTagFilter, type TagFilter } from './tag-filter.js';

function parsed(text: Parameters<typeof parseTagFilter>[0]): TagFilter {
  const filter = parseTagFilter(text);
  if (!filter) throw new Error('expected a filter');
  return filter;
}

function rejects(text: string, message: RegExp): void {
  let caught: unknown;
  try {
    parseTagFilter(text);
  } catch (err) {
    caught = err;
  }
  expect(caught, text).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.status).toBe(400);
  expect(err.code).toBe(5001);
  expect(err.message).toMatch(message);
}

describe('parseTagFilter', () => {
  it('returns null when there is no filter', () => {
    for (const text of [undefined, null, '', '   ', '|||', ' | ', [], ['', '  '], '[]']) expect(parseTagFilter(text)).toBeNull();
  });

  it('reads a |-joined string as AND of its tags, trimmed and without duplicates', () => {
    expect(parsed('MALE')).toEqual({ kind: 'tag', tag: 'MALE' });
    expect(parsed(' MALE | SHOES|MALE||')).toEqual({
      kind: 'and',
      of: [
        { kind: 'tag', tag: 'MALE' },
        { kind: 'tag', tag: 'SHOES' },
      ],
    });
  });

  it('keeps non-ASCII tags and compares them in NFC form', () => {
    const filter = parsed('女装|连衣裙');
    expect(matchesTags(filter, ['连衣裙', '女装', '天猫'])).toBe(true);
    expect(matchesTags(filter, ['女装'])).toBe(false);
    const decomposed = parsed('cafe\u0301');
    expect(matchesTags(decomposed, ['caf\u00e9'])).toBe(true);
  });

  it('reads the nested JSON expression of the protocol', () => {
    const filter = parsed('{"and": ["MALE", "SHOES", {"or": ["TMALL", "TAOBAO"]}]}');
    expect(formatTagFilter(filter)).toBe('{"and":["MALE","SHOES",{"or":["TMALL","TAOBAO"]}]}');
    expect(matchesTags(filter, ['MALE', 'SHOES', 'TAOBAO'])).toBe(true);
    expect(matchesTags(filter, new Set(['MALE', 'SHOES', 'TMALL', 'X']))).toBe(true);
    expect(matchesTags(filter, ['MALE', 'SHOES'])).toBe(false);
    expect(matchesTags(filter, ['MALE', 'TMALL'])).toBe(false);
  });

  it('accepts JSON with white space, upper-case keys, deep nesting within the limit and non-ASCII leaves', () => {
    const filter = parsed(' \n{ "OR" : [ {"and": ["女装", "夏季"]}, "童装" ] } ');
    expect(matchesTags(filter, ['童装'])).toBe(true);
    expect(matchesTags(filter, ['女装', '夏季'])).toBe(true);
    expect(matchesTags(filter, ['女装'])).toBe(false);
    let deep = '"x"';
    for (let i = 0; i < TAG_FILTER_LIMITS.depth; i++) deep = `{"and": [${deep}]}`;
    expect(parsed(deep)).toEqual({ kind: 'tag', tag: 'x' });
  });

  it('reads a repeated field or a JSON list as AND of its elements', () => {
    const fromList = parsed(['A', 'B|C', '{"or": ["D", "E"]}']);
    expect(matchesTags(fromList, ['A', 'B', 'C', 'E'])).toBe(true);
    expect(matchesTags(fromList, ['A', 'B', 'C'])).toBe(false);
    const fromJsonList = parsed('["A", {"or": ["D", "E"]}]');
    expect(matchesTags(fromJsonList, ['A', 'D'])).toBe(true);
    expect(matchesTags(fromJsonList, ['D'])).toBe(false);
  });

  it('treats text that only starts with [ but is not JSON as tags', () => {
    expect(parsed('[sale]|new')).toEqual({
      kind: 'and',
      of: [
        { kind: 'tag', tag: '[sale]' },
        { kind: 'tag', tag: 'new' },
      ],
    });
  });

  it('refuses JSON-looking text that is not a valid expression, with a clear message', () => {
    rejects('{"and": ["a"', /not valid JSON/);
    rejects('{and: [a]}', /not valid JSON/);
    rejects('{"xor": ["a"]}', /exactly one key, "and" or "or"/);
    rejects('{"and": ["a"], "or": ["b"]}', /exactly one key/);
    rejects('{}', /exactly one key/);
    rejects('{"and": []}', /empty list/);
    rejects('{"or": [{"and": []}]}', /tags\.or\[0\]\.and is an empty list/);
    rejects('{"and": "a"}', /must be a list/);
    rejects('{"and": ["a", 1]}', /tags\.and\[1\] must be a tag string .* got a number/);
    rejects('{"and": ["a", null]}', /got null/);
    rejects('{"and": [["a"]]}', /got a list/);
    rejects('{"and": ["a", "  "]}', /empty tag/);
    rejects('["a", 2]', /got a number/);
    let deep = '"x"';
    for (let i = 0; i < TAG_FILTER_LIMITS.depth + 1; i++) deep = `{"and": [${deep}]}`;
    rejects(deep, /nested deeper than 8/);
    const many = JSON.stringify({ or: Array.from({ length: TAG_FILTER_LIMITS.leaves + 1 }, (_, i) => `t${i}`) });
    rejects(many, /more than 256 tags/);
  });
});

describe('matchesTags', () => {
  it('splits |-joined stored tags and ignores blanks', () => {
    expect(matchesTags(parsed('a|b'), ['a|b', ''])).toBe(true);
    expect(matchesTags(parsed('a|b'), [' a ', 'c'])).toBe(false);
  });
});
