import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opencv } from '../runtime/opencv-runtime.js';
import { describeQuery, mirrorLocalFeatures, packLocalFeatures, queryLocalFeatures, unpackLocalFeatures, wholeQuerySide, type LocalFeatures } from './local-features.js';
import { rerankPictures } from '../../../test/support/real-photos.js';

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

describe('the query and its mirror image', () => {
  it('describes the mirror image from the grey picture the query was described from, as from the picture itself', async () => {
    const { cv } = await opencv();
    const { source } = await rerankPictures();
    const described = describeQuery(cv, source);
    const side = wholeQuerySide(source);
    expect(described.grey).toMatchObject({ width: side, height: Math.round((source.height * side) / source.width) });
    expect(described.grey.data.length).toBe(described.grey.width * described.grey.height);
    expect(described.features.count).toBeGreaterThan(100);
    expect(packLocalFeatures(described.features)).toEqual(packLocalFeatures(queryLocalFeatures(cv, source)));
    const mirrored = mirrorLocalFeatures(cv, described.grey, described.banner);
    expect(Math.max(mirrored.width, mirrored.height)).toBe(side);
    expect(packLocalFeatures(mirrored)).toEqual(packLocalFeatures(queryLocalFeatures(cv, source, true)));
  });

  it('refuses a grey picture whose bytes do not match its size', async () => {
    const { cv } = await opencv();
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 64 }), fc.integer({ min: -2, max: 64 }), fc.integer({ min: 0, max: 5000 }), (width, height, length) => {
        fc.pre(width < 1 || height < 1 || length !== width * height);
        expect(() => mirrorLocalFeatures(cv, { data: new Uint8Array(length), width, height }, null)).toThrow(/local features/);
      }),
    );
  });
});
