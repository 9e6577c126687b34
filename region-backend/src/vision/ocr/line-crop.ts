/**
 * Cuts a detected text box out of the image as an upright strip (PaddleOCR's `get_rotate_crop_image`):
 * the quad is mapped onto a rectangle (bilinear sampling, edge pixels repeated), and a strip much taller
 * than wide is turned a quarter counter-clockwise so vertical text reads left to right.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { resizeRgb } from '../runtime/pixels.js';
import type { Quad } from './geometry.js';

const dist = (a: { x: number; y: number }, b: { x: number; y: number }): number => Math.hypot(a.x - b.x, a.y - b.y);

export function cropQuad(img: RgbImage, quad: Quad): RgbImage {
  const [tl, tr, br, bl] = quad;
  const w = Math.max(1, Math.floor(Math.max(dist(tl, tr), dist(bl, br))));
  const h = Math.max(1, Math.floor(Math.max(dist(tl, bl), dist(tr, br))));
  const out = new Uint8Array(w * h * 3);
  const { width: iw, height: ih, data } = img;
  for (let v = 0; v < h; v++) {
    const fv = h > 1 ? v / (h - 1) : 0;
    // Bilinear interpolation of the quad's edges gives the source point of each strip pixel.
    const lx = tl.x + (bl.x - tl.x) * fv, ly = tl.y + (bl.y - tl.y) * fv;
    const rx = tr.x + (br.x - tr.x) * fv, ry = tr.y + (br.y - tr.y) * fv;
    for (let u = 0; u < w; u++) {
      const fu = w > 1 ? u / (w - 1) : 0;
      const sx = Math.min(iw - 1, Math.max(0, lx + (rx - lx) * fu));
      const sy = Math.min(ih - 1, Math.max(0, ly + (ry - ly) * fu));
      const x0 = Math.floor(sx), y0 = Math.floor(sy);
      const x1 = Math.min(iw - 1, x0 + 1), y1 = Math.min(ih - 1, y0 + 1);
      const wx = sx - x0, wy = sy - y0;
      const a = (y0 * iw + x0) * 3, b = (y0 * iw + x1) * 3, c = (y1 * iw + x0) * 3, d = (y1 * iw + x1) * 3;
      const o = (v * w + u) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const top = data[a + ch]! + (data[b + ch]! - data[a + ch]!) * wx;
        const bottom = data[c + ch]! + (data[d + ch]! - data[c + ch]!) * wx;
        out[o + ch] = Math.round(top + (bottom - top) * wy);
      }
    }
  }
  const strip = { data: out, width: w, height: h };
  return h / w >= 1.5 ? rotateCounterClockwise(strip) : strip;
}

function rotateCounterClockwise(img: RgbImage): RgbImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h * 3);
  // New image is h wide and w tall; source (x, y) lands at (y, w - 1 - x).
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const d = ((w - 1 - x) * h + y) * 3;
      out[d] = data[s]!;
      out[d + 1] = data[s + 1]!;
      out[d + 2] = data[s + 2]!;
    }
  }
  return { data: out, width: h, height: w };
}

/** Rotates a strip by 180° (the direction classifier found it upside down). */
export function rotate180(img: RgbImage): RgbImage {
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  for (let p = 0; p < n; p++) {
    const s = p * 3;
    const d = (n - 1 - p) * 3;
    out[d] = img.data[s]!;
    out[d + 1] = img.data[s + 1]!;
    out[d + 2] = img.data[s + 2]!;
  }
  return { data: out, width: img.width, height: img.height };
}

/** Scales a strip to `height` keeping its aspect ratio, never wider than `maxWidth`. */
export function toLineHeight(img: RgbImage, height: number, maxWidth: number): RgbImage {
  const width = Math.max(1, Math.min(maxWidth, Math.ceil((img.width * height) / img.height)));
  return resizeRgb(img, width, height);
}
