import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { rerankPictures, rgbOf } from '../../../test/support/real-photos.js';
import { embed } from './embedder.js';
import { subMap, type FeatureMap } from './feature-pooling.js';
import { boxInQuery, embedQueryRegions, MAX_QUERY_REGIONS, QUERY_REGIONS, queryRegions, regionPixels, windowsToDescribe, type Box } from './query-regions.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('query regions', () => {
  it('lists a grid of half-size windows inside the picture, no more than the maximum', async () => {
    const regions = queryRegions();
    expect(regions).toHaveLength(MAX_QUERY_REGIONS);
    expect(new Set(regions.map((r) => r.box.join())).size).toBe(regions.length);
    for (const { box } of regions) {
      expect(box[0] + box[2]).toBeLessThanOrEqual(1);
      expect(box[1] + box[3]).toBeLessThanOrEqual(1);
    }
    // Every point of the picture lies in some window.
    for (const [x, y] of [[0.01, 0.99], [0.5, 0.5], [0.99, 0.01], [0.74, 0.26]]) {
      expect(regions.some(({ box }) => x! >= box[0] && x! <= box[0] + box[2] && y! >= box[1] && y! <= box[1] + box[3])).toBe(true);
    }
    const big = { data: new Uint8Array(100 * 80 * 3).map((_, i) => i % 251), width: 100, height: 80 };
    const window = await regionPixels(big, { box: [0.5, 0.25, 0.5, 0.5] });
    expect([window.width, window.height]).toEqual([50, 40]);
    // The window's first pixel is the picture's pixel (50, 20).
    expect([...window.data.subarray(0, 3)]).toEqual([...big.data.subarray((20 * 100 + 50) * 3, (20 * 100 + 50) * 3 + 3)]);
  });

  it("copies the cells under any box (at least one), each equal to the map's cell", () => {
    const arbitraryMap = fc.record({ height: fc.integer({ min: 1, max: 9 }), width: fc.integer({ min: 1, max: 9 }), channels: fc.integer({ min: 1, max: 3 }) });
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(arbitraryMap, unit, unit, unit, unit, ({ height, width, channels }, x, y, w, h) => {
        const map: FeatureMap = { height, width, channels, data: Float32Array.from({ length: height * width * channels }, (_, i) => i) };
        const box = [x, y, Math.max(1e-6, w * (1 - x)), Math.max(1e-6, h * (1 - y))];
        const sub = subMap(map, box);
        expect(sub.width).toBeGreaterThanOrEqual(1);
        expect(sub.height).toBeGreaterThanOrEqual(1);
        expect(sub.data.length).toBe(sub.width * sub.height * channels);
        const left = Math.min(width - 1, Math.floor(x * width));
        const top = Math.min(height - 1, Math.floor(y * height));
        expect(left + sub.width).toBeLessThanOrEqual(width);
        expect(top + sub.height).toBeLessThanOrEqual(height);
        // The last cell copied is the map's cell at the same place.
        const [r, c] = [sub.height - 1, sub.width - 1];
        expect(sub.data[(r * sub.width + c) * channels]).toBe(map.data[((top + r) * width + left + c) * channels]);
      }),
    );
    // Whole box: the map itself; hostile boxes (outside, empty) still give one cell inside the map.
    const map: FeatureMap = { height: 2, width: 3, channels: 1, data: Float32Array.from([1, 2, 3, 4, 5, 6]) };
    expect([...subMap(map, [0, 0, 1, 1]).data]).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...subMap(map, [1, 1, 0, 0]).data]).toEqual([6]);
    expect([...subMap(map, [0.5, 0.5, 0.5, 0.5]).data]).toEqual([5, 6]);
  });

  it('describes the windows whose best hit scores highest, none without a hit, and maps their matches back to the query', () => {
    expect(windowsToDescribe([0.5, 0.7, 0, 0.9, 0.6])).toEqual([3, 1, 4, 0].slice(0, QUERY_REGIONS.windowKeypoints));
    expect(windowsToDescribe([0.5, 0.7, 0, 0.9, 0.6], 2)).toEqual([3, 1]);
    expect(windowsToDescribe([0.5, 0.7], -1)).toEqual([]);
    expect(windowsToDescribe([0, 0])).toEqual([]);
    expect(windowsToDescribe([])).toEqual([]);
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(fc.tuple(unit, unit, unit, unit), fc.tuple(unit, unit, unit, unit), ([wx, wy, ww, wh], [ix, iy, iw, ih]) => {
        const window: Box = [wx * 0.5, wy * 0.5, 0.5 * ww, 0.5 * wh];
        const inner: Box = [ix * (1 - iw), iy * (1 - ih), iw, ih];
        const [x, y, w, h] = boxInQuery(window, inner);
        // The match lies inside the window, in the query's coordinates.
        expect(x).toBeGreaterThanOrEqual(window[0] - 1e-12);
        expect(y).toBeGreaterThanOrEqual(window[1] - 1e-12);
        expect(x + w).toBeLessThanOrEqual(window[0] + window[2] + 1e-12);
        expect(y + h).toBeLessThanOrEqual(window[1] + window[3] + 1e-12);
      }),
    );
    expect(boxInQuery([0.5, 0.25, 0.5, 0.5], [0, 0, 1, 1])).toEqual([0.5, 0.25, 0.5, 0.5]);
  });

  it('pools a window of one pass over the query into a vector near the picture that window shows', async () => {
    // A picture at 45 % of the width in the top-left quarter of a larger picture of something else.
    const { source, other } = await rerankPictures();
    const raw = (img: typeof source) => ({ raw: { width: img.width, height: img.height, channels: 3 as const } });
    const inset = await sharp(Buffer.from(source.data), raw(source)).resize({ width: 540 }).raw().toBuffer();
    const backdrop = await sharp(Buffer.from(other.data), raw(other)).resize({ width: 1200, height: 900, fit: 'fill' }).png().toBuffer();
    const collage = await rgbOf(sharp(backdrop).composite([{ input: inset, raw: { width: 540, height: 405, channels: 3 }, left: 20, top: 20 }]));

    const picture = (await embed({ rgb: source })).vector;
    const whole = (await embed({ rgb: collage })).vector;
    const regions = queryRegions();
    const vectors = await embedQueryRegions(collage, regions);
    expect(vectors).toHaveLength(regions.length);
    const topLeft = vectors[regions.findIndex((r) => r.box.join() === '0,0,0.5,0.5')]!;
    const bottomRight = vectors[regions.findIndex((r) => r.box.join() === '0.5,0.5,0.5,0.5')]!;
    expect(cosine(topLeft, topLeft)).toBeCloseTo(1, 4);
    // The window holding the picture is nearer to it than the whole query and than the window beside it.
    expect(cosine(topLeft, picture)).toBeGreaterThan(cosine(whole, picture) + 0.1);
    expect(cosine(topLeft, picture)).toBeGreaterThan(cosine(bottomRight, picture) + 0.1);
  });
});
