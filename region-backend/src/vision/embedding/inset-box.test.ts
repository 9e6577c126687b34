import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { photoPixels } from '../../../test/support/test-images.js';
import { iou } from '../detect/detection.js';
import { seededRandom } from '../../util/seeded-random.js';
import { greyCopy, insetBox, INSET_GREY_SIDE, type GreyImage } from './inset-box.js';

/** A smooth grey page (diagonal bands, no straight axis-aligned edge) with a flat picture pasted at the pixel box. */
function pasted(width: number, height: number, box: [number, number, number, number], seed: number): GreyImage {
  const data = new Uint8Array(width * height);
  const [bx, by, bw, bh] = box;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= bx && x < bx + bw && y >= by && y < by + bh;
      data[y * width + x] = inside ? 200 + ((x - bx + seed) % 40) : 60 + Math.round(30 * Math.sin((x + 2 * y + seed) / 23));
    }
  }
  return { data, width, height };
}

describe('greyCopy', () => {
  it('is each grey pixel the rounded mean luma of the whole pixels that map to it, at any size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 1, max: 90 }), fc.integer({ min: 1, max: 100 }), fc.integer(), (width, height, side, seed) => {
        const random = seededRandom(seed);
        const data = Uint8Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256));
        const grey = greyCopy({ data, width, height }, side);
        const scale = Math.min(1, side / Math.max(width, height));
        expect([grey.width, grey.height]).toEqual([Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))]);
        // The definition, pixel by pixel: which grey pixel each picture pixel falls in, and the mean of each.
        const sums = new Array<number>(grey.width * grey.height).fill(0);
        const counts = new Array<number>(grey.width * grey.height).fill(0);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const at = Math.min(grey.height - 1, Math.floor((y * grey.height) / height)) * grey.width + Math.min(grey.width - 1, Math.floor((x * grey.width) / width));
            const i = (y * width + x) * 3;
            sums[at]! += 77 * data[i]! + 150 * data[i + 1]! + 29 * data[i + 2]!;
            counts[at]!++;
          }
        }
        expect(Array.from(grey.data)).toEqual(sums.map((sum, k) => Math.round(sum / (256 * Math.max(1, counts[k]!)))));
      }),
      { numRuns: 200 },
    );
  });
});

describe('insetBox', () => {
  it('finds a picture pasted on a busy page, just inside its border', () => {
    const box = insetBox(pasted(512, 384, [200, 100, 180, 150], 3))!;
    expect(box).not.toBeNull();
    expect(iou(box, [200 / 512, 100 / 384, 180 / 512, 150 / 384])).toBeGreaterThan(0.95);
  });

  it('finds none in a photo-like picture, a flat one, or one too small to look at', () => {
    expect(insetBox(greyCopy(photoPixels(640, 480, 5), INSET_GREY_SIDE))).toBeNull();
    expect(insetBox({ data: new Uint8Array(200 * 150).fill(128), width: 200, height: 150 })).toBeNull();
    expect(insetBox(pasted(31, 200, [5, 50, 20, 80], 1))).toBeNull();
  });

  it('finds a picture pasted anywhere inside, at any size the bounds allow', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 160, max: 512 }),
        fc.integer({ min: 160, max: 512 }),
        fc.double({ min: 0.3, max: 0.75, noNaN: true }),
        fc.double({ min: 0.3, max: 0.75, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat(1000),
        (width, height, sw, sh, px, py, seed) => {
          const [bw, bh] = [Math.round(sw * width), Math.round(sh * height)];
          // At least 8 pixels of page on every side: image borders are not edges.
          const bx = 8 + Math.floor(px * (width - bw - 16));
          const by = 8 + Math.floor(py * (height - bh - 16));
          const truth: [number, number, number, number] = [bx / width, by / height, bw / width, bh / height];
          if (truth[2]! * truth[3]! > 0.7) return;
          const found = insetBox(pasted(width, height, [bx, by, bw, bh], seed));
          expect(found).not.toBeNull();
          expect(iou(found!, truth)).toBeGreaterThan(0.85);
        },
      ),
    );
  });

  it('answers null or a box inside the picture within the area bounds for any pixels (hostile input)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 96 }), fc.integer({ min: 1, max: 96 }), fc.uint8Array({ minLength: 96 * 96, maxLength: 96 * 96 }), (width, height, bytes) => {
        const box = insetBox({ data: bytes.subarray(0, width * height), width, height });
        if (box === null) return;
        const [x, y, w, h] = box;
        expect(x).toBeGreaterThan(0);
        expect(y).toBeGreaterThan(0);
        expect(x + w).toBeLessThan(1);
        expect(y + h).toBeLessThan(1);
        expect(w * h).toBeGreaterThanOrEqual(0.04);
        expect(w * h).toBeLessThanOrEqual(0.7);
      }),
    );
  });
});
