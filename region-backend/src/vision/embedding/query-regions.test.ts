import { describe, expect, it } from 'vitest';
import { MAX_QUERY_REGIONS, queryRegions, regionPixels } from './query-regions.js';

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
});
