import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withinSync } from '../../test/support/time-bound.js';
import { LIMITS, truncateChars } from '@iris/shared';
import { cutTruncatedParams, JsonTooDeepError, jsonDepth, MAX_JSON_DEPTH, overlongParam, PARAM_MAX_CHARS, parseBoundedJson } from './input-limits.js';

describe('JSON depth bound', () => {
  it('measures the depth of any JSON value as JSON.parse reads it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        const text = JSON.stringify(value);
        const depth = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depth)) : 0);
        expect(jsonDepth(text)).toBe(depth(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses deep nesting in one pass, strings with brackets are not nesting', () => {
    const deep = '['.repeat(5_000_000);
    expect(() => withinSync(() => parseBoundedJson(deep), 500, 'parseBoundedJson')).toThrow(JsonTooDeepError);
    expect(parseBoundedJson(JSON.stringify({ a: '[[[[{{{{'.repeat(100), b: '\\"[' }))).toBeTruthy();
    const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(() => parseBoundedJson(ok)).not.toThrow();
    expect(() => parseBoundedJson(`[${ok}]`)).toThrow(JsonTooDeepError);
  });

  it('never throws anything but SyntaxError or JsonTooDeepError on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', '1', 'a', ' ') , maxLength: 2000 }), (text) => {
        withinSync(() => {
          try {
            parseBoundedJson(text);
          } catch (err) {
            if (!(err instanceof SyntaxError || err instanceof JsonTooDeepError)) throw err;
          }
        }, 200);
      }),
      { numRuns: 500 },
    );
  });
});

describe('scalar parameter caps', () => {
  it('names the first parameter over its cap, and only then', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(PARAM_MAX_CHARS)), fc.integer({ min: -3, max: 3 }), (name, delta) => {
        const max = PARAM_MAX_CHARS[name]!;
        const message = overlongParam({ [name]: 'x'.repeat(Math.max(0, max + delta)) });
        if (delta > 0) expect(message).toContain(name);
        else expect(message).toBeNull();
      }),
    );
  });
});

describe('names and descriptions past their cap', () => {
  // The services keep trim(value) truncated to 16 (names) or 128 (descriptions) characters: the cut must not change that.
  const kept = (value: string, max: number) => truncateChars(value.trim(), max);

  it('are cut, never refused, and the service keeps what it would have kept of the whole value', () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom(' ', '\t', '\n', '名', '😀'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 6000 });
    fc.assert(
      fc.property(text, text, (name, description) => {
        const fields: Record<string, string> = { name, description };
        cutTruncatedParams(fields);
        expect(overlongParam(fields)).toBeNull();
        expect(kept(fields.name!, LIMITS.setNameChars)).toBe(kept(name, LIMITS.setNameChars));
        expect(kept(fields.description!, LIMITS.setDescriptionChars)).toBe(kept(description, LIMITS.setDescriptionChars));
      }),
      { numRuns: 300 },
    );
  });

  it('a hostile name: megabytes of white space before the text, or one long run of a surrogate pair', () => {
    const fields: Record<string, string> = { name: `${' '.repeat(2_000_000)}real name`, description: '😀'.repeat(100_000) };
    withinSync(() => cutTruncatedParams(fields), 500, 'cutTruncatedParams');
    expect(fields.name).toBe('real name');
    expect(kept(fields.description!, LIMITS.setDescriptionChars)).toBe('😀'.repeat(128));
    expect(overlongParam({ scenario: 'x'.repeat(129) })).toMatch(/scenario/);
  });
});
