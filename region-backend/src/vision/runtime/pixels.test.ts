import type { RgbImage } from '../../images/rgb-image.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cropNormalised, cropRgb, frameRgb, limitSide, resizeRgb, toInputTensor } from './pixels.js';

function image(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { data, width, height };
}

/** Bilinear resize written out pixel by pixel and channel by channel: what resizeRgb must equal exactly (no box step). */
function referenceResize(src: RgbImage, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  const sx = src.width / width;
  const sy = src.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.max(0, Math.min(src.height - 1, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(src.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.max(0, Math.min(src.width - 1, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(src.width - 1, x0 + 1);
      const wx = fx - x0;
      for (let ch = 0; ch < 3; ch++) {
        const at = (px: number, py: number) => src.data[(py * src.width + px) * 3 + ch]!;
        const top = at(x0, y0) * (1 - wx) + at(x1, y0) * wx;
        const bottom = at(x0, y1) * (1 - wx) + at(x1, y1) * wx;
        out[(y * width + x) * 3 + ch] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
  return out;
}

const randomImage = (maxSide: number) =>
  fc.record({ width: fc.integer({ min: 1, max: maxSide }), height: fc.integer({ min: 1, max: maxSide }), seed: fc.integer() }).map(({ width, height, seed }) => {
    const data = new Uint8Array(width * height * 3);
    let s = seed >>> 0;
    for (let i = 0; i < data.length; i++) data[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24;
    return { data, width, height };
  });

describe('pixel operations', () => {
  it('resizes exactly as the pixel-by-pixel bilinear formula (enlarging, or shrinking by less than 4×)', () => {
    fc.assert(
      fc.property(randomImage(40), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), (img, width, height) => {
        fc.pre(Math.floor(Math.min(img.width / width, img.height / height) / 2) < 2); // no box pre-filter
        expect(Buffer.from(resizeRgb(img, width, height).data).equals(Buffer.from(referenceResize(img, width, height)))).toBe(true);
      }),
    );
  });

  it('tensors hold (pixel / scale - mean) / std of the right pixel and channel, in either layout and colour order', () => {
    fc.assert(
      fc.property(fc.array(randomImage(6), { minLength: 1, maxLength: 3 }), fc.constantFrom('nhwc' as const, 'nchw' as const), fc.constantFrom('rgb' as const, 'bgr' as const), (images, layout, colorOrder) => {
        const batch = images.map((img) => ({ ...img, width: images[0]!.width, height: images[0]!.height, data: img.data.length === images[0]!.data.length ? img.data : images[0]!.data }));
        const normalisation = { scale: 127.5, mean: [0.5, 1, 0.25] as [number, number, number], std: [0.5, 2, 0.75] as [number, number, number] };
        const { data, dims } = toInputTensor(batch, { layout, colorOrder, normalisation });
        const { width, height } = batch[0]!;
        for (let n = 0; n < batch.length; n++) {
          for (let p = 0; p < width * height; p++) {
            for (let c = 0; c < 3; c++) {
              const source = colorOrder === 'bgr' ? 2 - c : c;
              const expected = Math.fround((batch[n]!.data[p * 3 + source]! / 127.5 - normalisation.mean[c]!) / normalisation.std[c]!);
              const index = layout === 'nchw' ? ((n * 3 + c) * height * width) + p : (n * height * width + p) * 3 + c;
              expect(data[index]).toBe(expected);
            }
          }
        }
        expect(dims).toEqual(layout === 'nchw' ? [batch.length, 3, height, width] : [batch.length, height, width, 3]);
      }),
    );
  });

  it('crops in pixels and in normalised coordinates, clamped to the image', () => {
    const img = image(10, 6, (x, y) => [x, y, 0]);
    const c = cropRgb(img, 2, 1, 3, 2);
    expect([c.width, c.height]).toEqual([3, 2]);
    expect(Array.from(c.data.subarray(0, 3))).toEqual([2, 1, 0]);
    const n = cropNormalised(img, [0.5, 0.5, 1, 1]);
    expect([n.left, n.top, n.image.width, n.image.height]).toEqual([5, 3, 5, 3]);
    expect(Array.from(n.image.data.subarray(0, 3))).toEqual([5, 3, 0]);
  });

  it('resizes with averaging, so a fine checkerboard shrinks to mid gray instead of aliasing', () => {
    const board = image(64, 64, (x, y) => ((x + y) % 2 ? [255, 255, 255] : [0, 0, 0]));
    const small = resizeRgb(board, 8, 8);
    for (const v of small.data) expect(Math.abs(v - 127.5)).toBeLessThan(3);
    const grown = resizeRgb(image(2, 1, (x) => (x ? [200, 0, 0] : [0, 0, 0])), 4, 1);
    expect(Array.from(grown.data.filter((_, i) => i % 3 === 0))).toEqual([0, 50, 150, 200]);
  });

  it('limits the longer side without enlarging', () => {
    const img = image(400, 100, () => [1, 2, 3]);
    const s = limitSide(img, 200);
    expect([s.width, s.height]).toEqual([200, 50]);
    expect(limitSide(img, 1000)).toBe(img);
  });

  it('builds NHWC and NCHW tensors with colour order and normalisation from the manifest', () => {
    const img = image(2, 1, (x) => (x ? [10, 20, 30] : [40, 50, 60]));
    const plain: Parameters<typeof toInputTensor>[1] = { layout: 'nhwc', colorOrder: 'rgb', normalisation: { scale: 1, mean: [0, 0, 0], std: [1, 1, 1] } };
    const nhwc = toInputTensor([img], plain);
    expect(nhwc.dims).toEqual([1, 1, 2, 3]);
    expect(Array.from(nhwc.data)).toEqual([40, 50, 60, 10, 20, 30]);
    const nchw = toInputTensor([img, img], { layout: 'nchw', colorOrder: 'bgr', normalisation: { scale: 10, mean: [1, 0, 0], std: [2, 1, 1] } });
    expect(nchw.dims).toEqual([2, 3, 1, 2]);
    // Channel 0 is blue: (60/10 - 1)/2 = 2.5 and (30/10 - 1)/2 = 1.
    expect(Array.from(nchw.data.subarray(0, 6))).toEqual([2.5, 1, 5, 2, 4, 1]);
    expect(() => toInputTensor([img, image(1, 1, () => [0, 0, 0])], plain)).toThrow(/share a size/);
  });

  it('frames a picture: the picture unchanged in the middle, each border pixel a copy of the nearest edge pixel', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 16 }), fc.double({ min: 0, max: 2, noNaN: true }), (w, h, margin) => {
        const img = image(w, h, (x, y) => [x * 10, y * 10, (x + y) % 256]);
        const { image: framed, inner } = frameRgb(img, margin, 4096);
        expect([inner.width, inner.height]).toEqual([w, h]);
        expect(framed.width).toBe(w + 2 * inner.left);
        expect(framed.height).toBe(h + 2 * inner.top);
        for (let y = 0; y < framed.height; y++) {
          for (let x = 0; x < framed.width; x++) {
            const sx = Math.max(0, Math.min(w - 1, x - inner.left));
            const sy = Math.max(0, Math.min(h - 1, y - inner.top));
            const at = (y * framed.width + x) * 3;
            expect(Array.from(framed.data.subarray(at, at + 3))).toEqual([sx * 10, sy * 10, (sx + sy) % 256]);
          }
        }
      }),
      { numRuns: 40 },
    );
    // A large picture is shrunk first, so the frame stays within the bound.
    const big = frameRgb(image(1000, 500, () => [255, 255, 255]), 0.5, 512);
    expect(Math.max(big.image.width, big.image.height)).toBeLessThanOrEqual(512);
    expect(big.inner.width).toBe(256);
  });
});
