import { describe, expect, it } from 'vitest';
import { MAX_QUERY_REGIONS, queryRegions, regionPixels, turnRgb } from './query-regions.js';

/** A 3 × 2 picture whose pixel (x, y) has red x and green y. */
const picture = () => {
  const data = new Uint8Array(3 * 2 * 3);
  for (let y = 0; y < 2; y++) for (let x = 0; x < 3; x++) data.set([x, y, 7], (y * 3 + x) * 3);
  return { data, width: 3, height: 2 };
};
const at = (img: { data: Uint8Array; width: number }, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 3, (y * img.width + x) * 3 + 3)];

describe('query regions', () => {
  it('turns a picture clockwise by quarters, moving every pixel', () => {
    const quarter = turnRgb(picture(), 1);
    expect([quarter.width, quarter.height]).toEqual([2, 3]);
    // Clockwise: the bottom-left corner (0, 1) comes to the top-left.
    expect(at(quarter, 0, 0)).toEqual([0, 1, 7]);
    expect(at(quarter, 1, 0)).toEqual([0, 0, 7]);
    const half = turnRgb(picture(), 2);
    expect(at(half, 0, 0)).toEqual([2, 1, 7]);
    const three = turnRgb(picture(), 3);
    expect(at(three, 0, 0)).toEqual([2, 0, 7]);
    expect(turnRgb(turnRgb(picture(), 1), 3).data).toEqual(picture().data);
    expect(turnRgb(picture(), 4)).toEqual(picture());
  });

  it('lists the quarter turns first, then windows inside the picture, no more than the maximum', async () => {
    const regions = queryRegions();
    expect(regions).toHaveLength(MAX_QUERY_REGIONS);
    expect(regions.slice(0, 3).map((r) => r.quarterTurns)).toEqual([1, 2, 3]);
    for (const { box } of regions) {
      expect(box[0] + box[2]).toBeLessThanOrEqual(1);
      expect(box[1] + box[3]).toBeLessThanOrEqual(1);
    }
    const big = { data: new Uint8Array(100 * 80 * 3), width: 100, height: 80 };
    const window = await regionPixels(big, { box: [0.5, 0.25, 0.5, 0.5], quarterTurns: 0 });
    expect([window.width, window.height]).toEqual([50, 40]);
    const turned = await regionPixels(big, { box: [0, 0, 1, 1], quarterTurns: 3 });
    expect([turned.width, turned.height]).toEqual([80, 100]);
  });
});
