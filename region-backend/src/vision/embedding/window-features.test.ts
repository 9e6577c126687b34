import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { rerankPictures, rgbOf } from '../../../test/support/real-photos.js';
import { opencv } from '../runtime/opencv-runtime.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures, queryLocalFeatures, unpackLocalFeatures, type LocalFeatures } from './local-features.js';
import { verifyCandidates } from './geometric-verify.js';
import { QUERY_REGIONS } from './query-regions.js';
import { featuresInWindow, windowsLocalFeatures } from './window-features.js';
import searchVerifyWindowsTask from '../../inference/tasks/search-verify-windows.task.js';
import searchWindowFeaturesTask from '../../inference/tasks/search-window-features.task.js';
import { makeSearchQuery } from '../../images/query-edits.js';
import { textBanner } from './text-banner.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
/** A keypoint's place: inside its frame, never on the far edge. */
const place = fc.double({ min: 0, max: 0.999, noNaN: true });

describe("a window's keypoints", () => {
  it('are the keypoints inside the window, in its frame, with their own descriptors', () => {
    const features = fc.integer({ min: 0, max: 40 }).chain((count) =>
      fc.record({
        width: fc.integer({ min: 1, max: 2000 }),
        height: fc.integer({ min: 1, max: 2000 }),
        xs: fc.array(place, { minLength: count, maxLength: count }),
        ys: fc.array(place, { minLength: count, maxLength: count }),
      }),
    );
    fc.assert(
      fc.property(features, fc.tuple(unit, unit, unit, unit), ({ width, height, xs, ys }, [x, y, w, h]) => {
        const count = xs.length;
        const points = Float32Array.from(xs.flatMap((px, i) => [px * width, ys[i]! * height]));
        const descriptors = Uint8Array.from({ length: count * 32 }, (_, i) => Math.floor(i / 32));
        const all: LocalFeatures = { width, height, count, points, descriptors };
        const box = [x, y, w * (1 - x), h * (1 - y)] as const;
        const inside = featuresInWindow(all, box);
        expect(inside.count).toBeLessThanOrEqual(count);
        expect(inside.width).toBeGreaterThanOrEqual(1);
        expect(inside.height).toBeGreaterThanOrEqual(1);
        for (let k = 0; k < inside.count; k++) {
          const [px, py] = [inside.points[2 * k]!, inside.points[2 * k + 1]!];
          expect(px).toBeGreaterThanOrEqual(0);
          expect(py).toBeGreaterThanOrEqual(0);
          expect(px).toBeLessThan(inside.width);
          expect(py).toBeLessThan(inside.height);
          // The descriptor travelled with its keypoint (each original descriptor's bytes are its index).
          const original = inside.descriptors[k * 32]!;
          expect(points[2 * original]! - box[0] * width).toBeCloseTo(px, 3);
        }
        // The whole frame keeps every keypoint, the first ones when fewer are asked for.
        expect(featuresInWindow(all, [0, 0, 1, 1]).count).toBe(count);
        const first = featuresInWindow(all, [0, 0, 1, 1], 3);
        expect(first.count).toBe(Math.min(3, count));
        expect([...first.points]).toEqual([...points.subarray(0, 2 * first.count)]);
      }),
    );
    // Hostile windows: outside the frame or empty hold no keypoint.
    const one: LocalFeatures = { width: 10, height: 10, count: 1, points: Float32Array.from([5, 5]), descriptors: new Uint8Array(32) };
    expect(featuresInWindow(one, [2, 2, 1, 1]).count).toBe(0);
    expect(featuresInWindow(one, [0.5, 0.5, 0, 0]).count).toBe(0);
    expect(featuresInWindow(one, [0.4, 0.4, 0.2, 0.2]).count).toBe(1);
  });

  it("verify the picture inside a window of the query, its match given in the query's coordinates", async () => {
    const { cv } = await opencv();
    // The source picture at 45 % of the width in the bottom-right quarter of another picture.
    const { source, other } = await rerankPictures();
    const raw = (img: typeof source) => ({ raw: { width: img.width, height: img.height, channels: 3 as const } });
    const inset = await sharp(Buffer.from(source.data), raw(source)).resize({ width: 288 }).raw().toBuffer();
    const backdrop = await sharp(Buffer.from(other.data), raw(other)).resize({ width: 640, height: 480, fit: 'fill' }).png().toBuffer();
    const collage = await rgbOf(sharp(backdrop).composite([{ input: inset, raw: { width: 288, height: 216, channels: 3 }, left: 340, top: 250 }]));
    const stored = [other, source].map((image) => packLocalFeatures(extractLocalFeatures(cv, image, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures)));

    const shared = await searchWindowFeaturesTask({ rgb: collage, side: QUERY_REGIONS.side });
    const box = [0.5, 0.5, 0.5, 0.5] as [number, number, number, number];
    // Two windows in one task: the one that shows the source, and one far from it.
    const [near, far] = searchVerifyWindowsTask({ query: shared, windows: [{ box, candidates: stored }, { box: [0, 0, 0.5, 0.5], candidates: stored }] });
    const [none, found] = near!;
    expect(none).toBeNull();
    expect(found).not.toBeNull();
    // The match lies where the source was pasted (x 340–628, y 250–466 of 640×480), in the query's coordinates.
    const [x, y, w, h] = found!.queryBox;
    expect(x).toBeGreaterThan(0.5);
    expect(y).toBeGreaterThan(0.48);
    expect(x + w).toBeLessThanOrEqual(1 + 1e-9);
    expect(Math.abs(x + w / 2 - 484 / 640)).toBeLessThan(0.08);
    expect(Math.abs(y + h / 2 - 358 / 480)).toBeLessThan(0.08);
    // The window far from it does not show it.
    expect(far![1]).toBeNull();
    // Described once for all windows, yet as dense inside a window as the query's own description is on the whole.
    const inside = featuresInWindow(windowsLocalFeatures(cv, collage, QUERY_REGIONS.side), box);
    expect(inside.count).toBeGreaterThan(queryLocalFeatures(cv, collage).count / 8);
    expect(verifyCandidates(inside, stored.map(() => null))).toEqual([null, null]);
  });

  it("leave out the text banner the query's keypoint task found, without looking for it again", async () => {
    const { source } = await rerankPictures();
    const png = await sharp(Buffer.from(source.data), { raw: { width: source.width, height: source.height, channels: 3 } }).png().toBuffer();
    const query = await rgbOf(sharp(await makeSearchQuery({ png, width: source.width, height: source.height }, 'text', 'a')));
    const banner = textBanner(query)!;
    expect(banner).not.toBeNull();
    const side = QUERY_REGIONS.side;
    // Given the banner, the task answers what it answers when it looks for the banner itself.
    expect(await searchWindowFeaturesTask({ rgb: query, side, banner })).toEqual(await searchWindowFeaturesTask({ rgb: query, side }));
    // Told there is none, it takes keypoints on the band: the banner given is the one used.
    const onBand = (features: LocalFeatures) => Array.from({ length: features.count }, (_, i) => features.points[2 * i + 1]! / features.height).filter((y) => y >= banner.top && y < banner.top + banner.height).length;
    expect(onBand(unpackLocalFeatures(await searchWindowFeaturesTask({ rgb: query, side, banner })))).toBe(0);
    expect(onBand(unpackLocalFeatures(await searchWindowFeaturesTask({ rgb: query, side, banner: null })))).toBeGreaterThan(20);
  });
});
