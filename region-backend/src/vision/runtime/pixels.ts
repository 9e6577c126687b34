/**
 * Pixel operations on packed RGB images inside worker threads: crop, resize and conversion to a model's
 * input tensor (layout, colour order, normalisation from its manifest). Plain loops: deterministic, no
 * extra runtime, and a 640-pixel image takes a few milliseconds.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { ModelManifest } from './model-manifest.js';

/** Crops a rectangle in pixels (clamped to the image). */
export function cropRgb(img: RgbImage, left: number, top: number, width: number, height: number): RgbImage {
  const x0 = Math.max(0, Math.min(img.width - 1, Math.floor(left)));
  const y0 = Math.max(0, Math.min(img.height - 1, Math.floor(top)));
  const w = Math.max(1, Math.min(img.width - x0, Math.round(width)));
  const h = Math.max(1, Math.min(img.height - y0, Math.round(height)));
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const src = ((y0 + y) * img.width + x0) * 3;
    out.set(img.data.subarray(src, src + w * 3), y * w * 3);
  }
  return { data: out, width: w, height: h };
}

/** Crops a normalised box `[x, y, w, h]`; answers the crop and its pixel origin in the image. */
export function cropNormalised(img: RgbImage, box: readonly [number, number, number, number]): { image: RgbImage; left: number; top: number } {
  const left = Math.max(0, Math.min(img.width - 1, Math.floor(box[0] * img.width)));
  const top = Math.max(0, Math.min(img.height - 1, Math.floor(box[1] * img.height)));
  const right = Math.max(left + 1, Math.min(img.width, Math.round((box[0] + box[2]) * img.width)));
  const bottom = Math.max(top + 1, Math.min(img.height, Math.round((box[1] + box[3]) * img.height)));
  return { image: cropRgb(img, left, top, right - left, bottom - top), left, top };
}

/** Mirrors left to right. */
export function mirrorRgb(img: RgbImage): RgbImage {
  const out = new Uint8Array(img.data.length);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const src = (y * img.width + x) * 3;
      const dst = (y * img.width + (img.width - 1 - x)) * 3;
      out[dst] = img.data[src]!;
      out[dst + 1] = img.data[src + 1]!;
      out[dst + 2] = img.data[src + 2]!;
    }
  }
  return { data: out, width: img.width, height: img.height };
}

/** Averages `factor`×`factor` blocks: the anti-aliasing step before bilinear downscaling by large ratios. */
function boxShrink(img: RgbImage, factor: number): RgbImage {
  const w = Math.max(1, Math.floor(img.width / factor));
  const h = Math.max(1, Math.floor(img.height / factor));
  const out = new Uint8Array(w * h * 3);
  const area = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0, g = 0, b = 0;
      for (let dy = 0; dy < factor; dy++) {
        let i = ((y * factor + dy) * img.width + x * factor) * 3;
        for (let dx = 0; dx < factor; dx++, i += 3) {
          r += img.data[i]!;
          g += img.data[i + 1]!;
          b += img.data[i + 2]!;
        }
      }
      const o = (y * w + x) * 3;
      out[o] = r / area;
      out[o + 1] = g / area;
      out[o + 2] = b / area;
    }
  }
  return { data: out, width: w, height: h };
}

/**
 * Resizes to exactly `width`×`height` (aspect ratio not kept), bilinear with box pre-filtering. Each column's
 * source pixels and weight are worked out once, not once per row.
 */
export function resizeRgb(img: RgbImage, width: number, height: number): RgbImage {
  if (img.width === width && img.height === height) return img;
  const factor = Math.floor(Math.min(img.width / width, img.height / height) / 2);
  const src = factor >= 2 ? boxShrink(img, factor) : img;
  const out = new Uint8Array(width * height * 3);
  const sx = src.width / width;
  const sy = src.height / height;
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  const weight = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const fx = Math.max(0, Math.min(src.width - 1, (x + 0.5) * sx - 0.5));
    const x0 = Math.floor(fx);
    left[x] = x0 * 3;
    right[x] = Math.min(src.width - 1, x0 + 1) * 3;
    weight[x] = fx - x0;
  }
  const data = src.data;
  for (let y = 0; y < height; y++) {
    const fy = Math.max(0, Math.min(src.height - 1, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    const vy = 1 - wy;
    const row0 = y0 * src.width * 3;
    const row1 = Math.min(src.height - 1, y0 + 1) * src.width * 3;
    for (let x = 0, o = y * width * 3; x < width; x++, o += 3) {
      const wx = weight[x]!;
      const vx = 1 - wx;
      const a = row0 + left[x]!;
      const b = row0 + right[x]!;
      const c = row1 + left[x]!;
      const d = row1 + right[x]!;
      // Math.round of a non-negative value is floor(v + 0.5).
      out[o] = Math.floor((data[a]! * vx + data[b]! * wx) * vy + (data[c]! * vx + data[d]! * wx) * wy + 0.5);
      out[o + 1] = Math.floor((data[a + 1]! * vx + data[b + 1]! * wx) * vy + (data[c + 1]! * vx + data[d + 1]! * wx) * wy + 0.5);
      out[o + 2] = Math.floor((data[a + 2]! * vx + data[b + 2]! * wx) * vy + (data[c + 2]! * vx + data[d + 2]! * wx) * wy + 0.5);
    }
  }
  return { data: out, width, height };
}

/** Shrinks so the longer side is at most `maxSide` (never enlarges). */
export function limitSide(img: RgbImage, maxSide: number): RgbImage {
  const scale = maxSide / Math.max(img.width, img.height);
  if (scale >= 1) return img;
  return resizeRgb(img, Math.max(1, Math.round(img.width * scale)), Math.max(1, Math.round(img.height * scale)));
}

/**
 * The picture shrunk to at most `maxSide` and framed by a border of `margin` × its size on every side, the
 * border repeating the nearest edge pixel (a white backdrop stays white). The picture fills 1 / (1 + 2·margin)
 * of the frame's width and height; `inner` is where it lies, in pixels of the frame.
 */
export function frameRgb(img: RgbImage, margin: number, maxSide: number): { image: RgbImage; inner: { left: number; top: number; width: number; height: number } } {
  const inner = limitSide(img, Math.max(1, Math.round(maxSide / (1 + 2 * margin))));
  const dx = Math.round(inner.width * margin);
  const dy = Math.round(inner.height * margin);
  const width = inner.width + 2 * dx;
  const height = inner.height + 2 * dy;
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.max(0, Math.min(inner.height - 1, y - dy));
    for (let x = 0; x < width; x++) {
      const sx = Math.max(0, Math.min(inner.width - 1, x - dx));
      const s = (sy * inner.width + sx) * 3;
      const o = (y * width + x) * 3;
      out[o] = inner.data[s]!;
      out[o + 1] = inner.data[s + 1]!;
      out[o + 2] = inner.data[s + 2]!;
    }
  }
  return { image: { data: out, width, height }, inner: { left: dx, top: dy, width: inner.width, height: inner.height } };
}

export interface InputTensor {
  data: Float32Array;
  dims: number[];
  /** Letterboxed inputs: the part of the input holding the image (the rest is padding). */
  contentWidth?: number;
  contentHeight?: number;
}

/**
 * Converts images already at the model's input size into one batch tensor following the manifest:
 * value = (pixel / scale - mean) / std per channel, channels in `colorOrder`, NHWC or NCHW. The values of
 * the 256 byte values are worked out once per channel (the same float arithmetic as pixel by pixel).
 */
export function toInputTensor(images: RgbImage[], manifest: Pick<ModelManifest, 'layout' | 'colorOrder' | 'normalisation'>): InputTensor {
  const first = images[0];
  if (!first) throw new Error('toInputTensor needs at least one image');
  const { width, height } = first;
  const plane = width * height;
  const data = new Float32Array(images.length * plane * 3);
  const { scale, mean, std } = manifest.normalisation;
  const order = manifest.colorOrder === 'bgr' ? [2, 1, 0] : [0, 1, 2];
  const tables = [0, 1, 2].map((c) => Float32Array.from({ length: 256 }, (_, v) => (v / scale - mean[c]!) / std[c]!));
  const nchw = manifest.layout === 'nchw';
  const [t0, t1, t2] = tables as [Float32Array, Float32Array, Float32Array];
  const [s0, s1, s2] = order as [number, number, number];
  images.forEach((img, n) => {
    if (img.width !== width || img.height !== height) throw new Error('images of one batch must share a size');
    const base = n * plane * 3;
    const px = img.data;
    if (nchw) {
      for (let p = 0, i = 0, o = base; p < plane; p++, i += 3, o++) {
        data[o] = t0[px[i + s0]!]!;
        data[o + plane] = t1[px[i + s1]!]!;
        data[o + 2 * plane] = t2[px[i + s2]!]!;
      }
    } else {
      for (let i = 0, o = base; i < plane * 3; i += 3, o += 3) {
        data[o] = t0[px[i + s0]!]!;
        data[o + 1] = t1[px[i + s1]!]!;
        data[o + 2] = t2[px[i + s2]!]!;
      }
    }
  });
  const dims = nchw ? [images.length, 3, height, width] : [images.length, height, width, 3];
  return { data, dims };
}
