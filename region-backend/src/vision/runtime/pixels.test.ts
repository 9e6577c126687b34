import type { RgbImage } from '../../images/rgb-image.js';
import { describe, expect, it } from 'vitest';
import { cropNormalised, cropRgb, limitSide, resizeRgb, toInputTensor } from './pixels.js';

function image(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { data, width, height };
}

describe('pixel operations', () => {
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
});
