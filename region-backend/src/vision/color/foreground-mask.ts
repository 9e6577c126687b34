/**
 * Object foreground without a model: the background is what looks like the picture's border and touches it.
 *
 * 1. Shrink to ≤ 96 px and convert to CIELAB.
 * 2. Background colour model: k-means (k = 4) over a border band; clusters holding ≥ 8 % of the band are
 *    background colours.
 * 3. A pixel is background-like when it is within an adaptive distance of a background colour (CIELAB with
 *    lightness at half weight, so shadows on the backdrop stay background; the band's own spread sets the
 *    threshold, clamped to 10–28).
 * 4. Background = background-like pixels connected to the border (flood fill); the rest is foreground, so
 *    an object keeps inner parts that happen to share the background's colour.
 * When the result is implausible (foreground < 2 % or > 92 % of the picture: no distinct background), the
 * caller falls back to a centre prior (`centrePrior`).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { limitSide } from '../runtime/pixels.js';
import { clusterColors } from './color-clustering.js';
import { rgbToLab } from './color-space.js';
import type { Mask } from './palette-extraction.js';

const WORK_SIDE = 96;
const MIN_BG_SHARE = 0.08;
const MIN_FOREGROUND = 0.02;
const MAX_FOREGROUND = 0.92;

export function borderBackgroundForeground(image: RgbImage): Mask | null {
  const small = limitSide(image, WORK_SIDE);
  const { width: w, height: h } = small;
  const n = w * h;
  const lab = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const [L, a, b] = rgbToLab(small.data[i * 3]!, small.data[i * 3 + 1]!, small.data[i * 3 + 2]!);
    lab[i * 3] = L;
    lab[i * 3 + 1] = a;
    lab[i * 3 + 2] = b;
  }
  const band = Math.max(2, Math.round(0.05 * Math.min(w, h)));
  const border: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) if (x < band || y < band || x >= w - band || y >= h - band) border.push(y * w + x);
  }
  const borderLab = new Float32Array(border.length * 3);
  border.forEach((p, i) => borderLab.set(lab.subarray(p * 3, p * 3 + 3), i * 3));
  const clusters = clusterColors(borderLab, new Float32Array(border.length).fill(1), { k: 4, mergeDeltaE: 5 });
  const background = clusters.filter((c) => c.weight >= MIN_BG_SHARE).map((c) => c.lab);
  if (!background.length) return null;

  const distance = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (const c of background) {
      // Lightness counts half: shadows and light falloff on a backdrop change lightness more than colour.
      const d = Math.hypot(0.5 * (lab[i * 3]! - c[0]), lab[i * 3 + 1]! - c[1], lab[i * 3 + 2]! - c[2]);
      if (d < best) best = d;
    }
    distance[i] = best;
  }
  const borderDistances = border.map((p) => distance[p]!).sort((a, b) => a - b);
  const p80 = borderDistances[Math.floor(0.8 * (borderDistances.length - 1))]!;
  const threshold = Math.max(10, Math.min(28, 1.6 * p80 + 4));

  const isBackground = new Uint8Array(n);
  const stack: number[] = [];
  for (const p of border) {
    if (distance[p]! < threshold && !isBackground[p]) {
      isBackground[p] = 1;
      stack.push(p);
    }
  }
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % w;
    const y = (p - x) / w;
    const visit = (q: number) => {
      if (!isBackground[q] && distance[q]! < threshold) {
        isBackground[q] = 1;
        stack.push(q);
      }
    };
    if (x > 0) visit(p - 1);
    if (x < w - 1) visit(p + 1);
    if (y > 0) visit(p - w);
    if (y < h - 1) visit(p + w);
  }
  // Foreground minus a one-pixel rim, so samples near the outline do not pick up background colour.
  const data = new Uint8Array(n);
  let foreground = 0;
  for (let i = 0; i < n; i++) {
    if (isBackground[i]) continue;
    foreground++;
    const x = i % w;
    const rim = (x > 0 && isBackground[i - 1]) || (x < w - 1 && isBackground[i + 1]) || (i >= w && isBackground[i - w]) || (i < n - w && isBackground[i + w]);
    if (!rim) data[i] = 255;
  }
  const share = foreground / n;
  if (share < MIN_FOREGROUND || share > MAX_FOREGROUND) return null;
  return { data, width: w, height: h };
}

/** A centred ellipse over the middle 70 % × 80 % of the picture: where product photos put the subject. */
export function centrePrior(width = 64, height = 64): Mask {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = (x + 0.5 - width / 2) / (0.35 * width);
      const dy = (y + 0.5 - height / 2) / (0.4 * height);
      if (dx * dx + dy * dy <= 1) data[y * width + x] = 255;
    }
  }
  return { data, width, height };
}

/** Pixel-wise maximum of two masks, at the resolution of the first. */
export function unionMasks(a: Mask, b: Mask): Mask {
  const data = new Uint8Array(a.data);
  for (let y = 0; y < a.height; y++) {
    const by = Math.min(b.height - 1, Math.floor(((y + 0.5) / a.height) * b.height));
    for (let x = 0; x < a.width; x++) {
      const bx = Math.min(b.width - 1, Math.floor(((x + 0.5) / a.width) * b.width));
      const v = b.data[by * b.width + bx]!;
      if (v > data[y * a.width + x]!) data[y * a.width + x] = v;
    }
  }
  return { data, width: a.width, height: a.height };
}

/** Share of a mask's pixels that are on (≥ 128). */
export function maskShare(mask: Mask): number {
  let on = 0;
  for (let i = 0; i < mask.data.length; i++) if (mask.data[i]! >= 128) on++;
  return on / mask.data.length;
}
