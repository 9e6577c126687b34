import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withinSync } from '../../test/support/time-bound.js';
import { ImageDecodeError } from './image-errors.js';
import { MAX_LOC_CHARS, parseLoc } from './loc.js';

const blowUps = [
  ' '.repeat(1_000_000),
  `1${' '.repeat(100_000)}x`,
  `[${' \t'.repeat(50_000)}`,
  `1${' ,'.repeat(50_000)}`,
  `${'1-'.repeat(50_000)}x`,
];

describe('loc parsing is bounded and linear', () => {
  it.each(blowUps.map((s, i) => [i, s] as const))('refuses blow-up %i at once', (_i, text) => {
    expect(() => withinSync(() => parseLoc(text), 50, 'parseLoc')).toThrow(ImageDecodeError);
  });

  it('takes every documented form', () => {
    for (const text of ['0.1-0.2-0.5-0.5', '[0.1,0.2,0.5,0.5]', '(0.1, 0.2, 0.5, 0.5)', '0.1 0.2 0.5 0.5', '0.1;0.2;0.5;0.5']) {
      expect(parseLoc(text)).toEqual([0.1, 0.2, 0.5, 0.5]);
    }
  });

  it('answers any text within the cap with a Loc or ImageDecodeError, quickly', () => {
    const piece = fc.constantFrom('0', '1', '.', '-', ',', ';', ' ', '\t', '[', ']', '(', ')', 'e', '5', '0.25');
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.array(piece, { maxLength: 400 }).map((a) => a.join(''))), (text) => {
        withinSync(() => {
          try {
            const loc = parseLoc(text);
            expect(text.length).toBeLessThanOrEqual(MAX_LOC_CHARS);
            for (const v of loc) expect(v).toBeGreaterThanOrEqual(0);
            expect(loc[0] + loc[2]).toBeLessThanOrEqual(1 + 1e-6);
          } catch (err) {
            if (!(err instanceof ImageDecodeError)) throw err;
          }
        }, 200, 'parseLoc');
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips generated valid regions in the hyphen form', () => {
    const frac = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
    fc.assert(
      fc.property(frac, frac, frac, frac, (x, y, a, b) => {
        const w = Math.max(0.001, a * (1 - x));
        const h = Math.max(0.001, b * (1 - y));
        if (x + w > 1 || y + h > 1) return;
        const loc = parseLoc(`${x}-${y}-${w}-${h}`);
        expect(loc[0]).toBeCloseTo(x, 9);
        expect(loc[3]).toBeCloseTo(h, 9);
      }),
      { numRuns: 300 },
    );
  });
});
