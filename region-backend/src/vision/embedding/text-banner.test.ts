import type { RgbImage } from '../../images/rgb-image.js';
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { makeSearchQuery } from '../../images/query-edits.js';
import { opencv } from '../runtime/opencv-runtime.js';
import { verifyCandidate } from './geometric-verify.js';
import { extractLocalFeatures, LOCAL_FEATURES, queryLocalFeatures } from './local-features.js';
import { textBanner, withoutRows } from './text-banner.js';
import { realPhoto, rerankPictures, rgbOf } from '../../../test/support/real-photos.js';

const raw = (rgb: RgbImage) => ({ raw: { width: rgb.width, height: rgb.height, channels: 3 as const } });

/** The photo with an 85 %-opaque coloured band across rows [top, top + height) and white lettering on it. */
async function withBanner(photo: RgbImage, top: number, height: number, text = 'SALE 50% OFF'): Promise<RgbImage> {
  const { width } = photo;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${photo.height}">` +
    `<rect x="0" y="${top}" width="${width}" height="${height}" fill="#b0203a" opacity="0.85"/>` +
    `<text x="50%" y="${top + height * 0.72}" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${Math.round(height * 0.6)}" fill="white">${text}</text></svg>`;
  const jpeg = await sharp(Buffer.from(photo.data), raw(photo)).composite([{ input: Buffer.from(svg) }]).jpeg({ quality: 85 }).toBuffer();
  return rgbOf(sharp(jpeg));
}

describe('text banner across a query picture', () => {
  it('finds the band of a banner pasted over real photos, and nothing on the photos themselves', async () => {
    const { source, other } = await rerankPictures();
    for (const photo of [source, other, await realPhoto('samples.jpg')]) {
      expect(textBanner(photo)).toBeNull();
      const top = Math.round(photo.height * 0.45);
      const height = Math.round(photo.height * 0.18);
      const found = textBanner(await withBanner(photo, top, height))!;
      expect(found).not.toBeNull();
      // The band found covers the drawn band (give or take its margin) and little else.
      expect(found.top).toBeLessThanOrEqual(top / photo.height + 0.005);
      expect(found.top + found.height).toBeGreaterThanOrEqual((top + height) / photo.height - 0.005);
      expect(found.height).toBeLessThan((height / photo.height) * 1.4);
    }
  });

  it('finds the banners of the search edit "text" (the self-evaluation\'s and the robustness evaluation\'s)', async () => {
    const { source } = await rerankPictures();
    const png = await sharp(Buffer.from(source.data), raw(source)).png().toBuffer();
    for (const seed of ['a', 'b', 'c', 'd']) {
      const query = await rgbOf(sharp(await makeSearchQuery({ png, width: source.width, height: source.height }, 'text', seed)));
      expect(textBanner(query), seed).not.toBeNull();
    }
  });

  it('leaves the banner out of the query keypoints, so the bannered copy still verifies against its source', async () => {
    const { cv } = await opencv();
    const { source } = await rerankPictures();
    const query = await withBanner(source, 200, 90, 'NEW ARRIVAL');
    const band = textBanner(query)!;
    const features = queryLocalFeatures(cv, query);
    expect(features.count).toBeGreaterThan(100);
    for (let i = 0; i < features.count; i++) {
      const y = features.points[2 * i + 1]! / features.height;
      expect(y < band.top || y >= band.top + band.height).toBe(true);
    }
    const match = verifyCandidate(features, extractLocalFeatures(cv, source, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures));
    expect(match?.inliers).toBeGreaterThanOrEqual(20);
  });

  it('cuts rows out and joins the rest', () => {
    const rgb: RgbImage = { width: 2, height: 10, data: Uint8Array.from({ length: 60 }, (_, i) => Math.floor(i / 6)) };
    const cut = withoutRows(rgb, { top: 0.3, height: 0.4 });
    expect(cut.height).toBe(6);
    expect(Array.from(cut.data.filter((_, i) => i % 6 === 0))).toEqual([0, 1, 2, 7, 8, 9]);
  });

  it('never throws and answers rows inside the picture for any pixels', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 1, max: 90 }), fc.integer(), fc.integer({ min: 0, max: 3 }), (width, height, seed, kind) => {
        const data = new Uint8Array(width * height * 3);
        let s = seed >>> 0;
        const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24;
        // Noise, flat rows, stripes, or a flat band with noise.
        for (let y = 0; y < height; y++) {
          const flat = kind === 1 || (kind === 2 && y % 7 < 3) || (kind === 3 && y > height / 3 && y < height / 2);
          const colour = next();
          for (let i = y * width * 3; i < (y + 1) * width * 3; i++) data[i] = flat ? (next() > 230 ? 255 : colour) : next();
        }
        const band = textBanner({ data, width, height });
        if (!band) return;
        expect(band.top).toBeGreaterThanOrEqual(0);
        expect(band.height).toBeGreaterThan(0);
        expect(band.top + band.height).toBeLessThanOrEqual(1 + 1e-9);
        const cut = withoutRows({ data, width, height }, band);
        expect(cut.data.length).toBe(cut.width * cut.height * 3);
        expect(cut.height).toBeLessThan(height);
      }),
      { numRuns: 300 },
    );
  });
});
