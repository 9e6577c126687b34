import type { RgbImage } from '../../images/rgb-image.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentBox } from './content-box.js';

/** A flat page of `width × height` with a textured picture at the given pixel box and thin grey text bars. */
function page(width: number, height: number, box: [number, number, number, number], seed = 1): RgbImage {
  const data = new Uint8Array(width * height * 3).fill(250);
  let s = seed;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16) & 255;
  const [bx, by, bw, bh] = box;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x >= bx && x < bx + bw && y >= by && y < by + bh) {
        data[i] = rand();
        data[i + 1] = (x * 3) & 255;
        data[i + 2] = (y * 5) & 255;
      } else if (y % 40 < 6 && x < bx - 60 && x > 20) {
        data.fill(120, i, i + 3);
      }
    }
  }
  return { data, width, height };
}

describe('contentBox', () => {
  it('finds a picture inside a page with text bars', () => {
    const found = contentBox(page(800, 500, [400, 120, 300, 260]))!;
    expect(found).not.toBeNull();
    const [x, y, w, h] = found;
    expect(x).toBeCloseTo(400 / 800, 1);
    expect(y).toBeCloseTo(120 / 500, 1);
    expect(w).toBeCloseTo(300 / 800, 1);
    expect(h).toBeCloseTo(260 / 500, 1);
  });

  it('answers null when the picture is the whole image, or too small to matter', () => {
    expect(contentBox(page(400, 300, [0, 0, 400, 300]))).toBeNull();
    expect(contentBox(page(400, 300, [10, 10, 20, 20]))).toBeNull();
  });

  it('never throws and stays inside the image for any pixels', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 80 }), fc.integer(), (width, height, seed) => {
        const data = new Uint8Array(width * height * 3);
        let s = seed >>> 0;
        for (let i = 0; i < data.length; i++) data[i] = (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24 > 128 ? 255 : (s >>> 8) & 255;
        const box = contentBox({ data, width, height });
        if (!box) return;
        const [x, y, w, h] = box;
        expect(x).toBeGreaterThanOrEqual(0);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(x + w).toBeLessThanOrEqual(1 + 1e-9);
        expect(y + h).toBeLessThanOrEqual(1 + 1e-9);
      }),
      { numRuns: 200 },
    );
  });
});
