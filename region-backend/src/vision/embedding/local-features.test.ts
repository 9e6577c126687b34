import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packLocalFeatures, unpackLocalFeatures, type LocalFeatures } from './local-features.js';

describe('local feature packing', () => {
  it('round-trips points (to 1/8 pixel) and descriptors', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 2000 }), (count, width, height) => {
        const points = Float32Array.from({ length: count * 2 }, (_, i) => ((i * 37.3) % (i % 2 ? height : width)));
        const descriptors = Uint8Array.from({ length: count * 32 }, (_, i) => (i * 13) & 255);
        const f: LocalFeatures = { width, height, count, points, descriptors };
        const back = unpackLocalFeatures(packLocalFeatures(f));
        expect(back).toMatchObject({ width, height, count });
        expect(Array.from(back.descriptors)).toEqual(Array.from(descriptors));
        back.points.forEach((p, i) => expect(Math.abs(p - points[i]!)).toBeLessThanOrEqual(1 / 16));
      }),
    );
  });

  it('refuses bytes of the wrong length instead of reading past them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          const f = unpackLocalFeatures(bytes);
          expect(bytes.length).toBe(6 + f.count * 36);
        } catch (err) {
          expect((err as Error).message).toMatch(/local features/);
        }
      }),
    );
  });
});
