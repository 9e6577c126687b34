import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '@iris/shared';
import { withinSync } from '../../../test/support/time-bound.js';
import { parseBatchUrls } from './batch-urls.js';

describe('batch URL lists on hostile files', () => {
  it('answer lines or a batch error, within the time bound', () => {
    const line = fc.oneof(fc.webUrl(), fc.string({ maxLength: 600 }), fc.constantFrom('', ' ', '\r', 'http://', `http://a/${'x'.repeat(600)}`));
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(line, eol), { maxLength: 300 }), fc.boolean(), (lines, bom) => {
        const text = (bom ? '\uFEFF' : '') + lines.map(([l, e]) => l + e).join('');
        withinSync(() => {
          try {
            const parsed = parseBatchUrls(Buffer.from(text, 'utf8'), 200);
            expect(parsed.length).toBeLessThanOrEqual(200);
            for (const p of parsed) expect(p.url).toBe(p.url.trim());
          } catch (err) {
            if (!isApiError(err)) throw err;
          }
        }, 500, 'parseBatchUrls');
      }),
      { numRuns: 150 },
    );
  });

  it('reads a 20 MB file of one whitespace line, or of invalid bytes, in bounded time', () => {
    expect(() => withinSync(() => parseBatchUrls(Buffer.alloc(20 * 1024 * 1024, 0x20), 100_000), 5_000)).toThrow();
    expect(() => withinSync(() => parseBatchUrls(Buffer.alloc(1024, 0xff), 100_000), 200)).toThrow(/UTF-8/);
  });
});
