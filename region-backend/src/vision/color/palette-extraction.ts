/** Samples an image (optionally through a mask) and clusters the samples into a palette. */
import type { RgbImage } from '../../images/rgb-image.js';
import { clusterColors, type ColorCluster } from './color-clustering.js';
import { rgbToLab } from './color-space.js';

/** A soft mask (0–255) over an image, at any resolution: it is read with nearest-neighbour scaling. */
export interface Mask {
  data: Uint8Array;
  width: number;
  height: number;
}

export const PALETTE_K = 10;
/** Clusters closer than this (CIEDE2000) are one colour. */
export const MERGE_DELTA_E = 7;
const MAX_SAMPLES = 16_384;
const MASK_ON = 128;

export interface Samples {
  lab: Float32Array;
  weights: Float32Array;
  /** Share of the sampled grid the mask keeps. */
  coverage: number;
}

/**
 * Point samples on a regular grid (no averaging: averaging would blend fine stripes into a colour that is
 * not there). Samples outside the mask are skipped.
 */
export function sampleLab(image: RgbImage, mask: Mask | null, maxSamples = MAX_SAMPLES): Samples {
  const { width, height, data } = image;
  const step = Math.max(1, Math.sqrt((width * height) / maxSamples));
  const cols = Math.max(1, Math.floor(width / step));
  const rows = Math.max(1, Math.floor(height / step));
  const stepX = width / cols;
  const stepY = height / rows;
  const lab = new Float32Array(cols * rows * 3);
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const y = Math.min(height - 1, Math.floor((r + 0.5) * stepY));
    for (let c = 0; c < cols; c++) {
      const x = Math.min(width - 1, Math.floor((c + 0.5) * stepX));
      if (mask) {
        const mx = Math.min(mask.width - 1, Math.floor((x * mask.width) / width));
        const my = Math.min(mask.height - 1, Math.floor((y * mask.height) / height));
        if (mask.data[my * mask.width + mx]! < MASK_ON) continue;
      }
      const p = (y * width + x) * 3;
      const [L, a, b] = rgbToLab(data[p]!, data[p + 1]!, data[p + 2]!);
      lab[n * 3] = L;
      lab[n * 3 + 1] = a;
      lab[n * 3 + 2] = b;
      n++;
    }
  }
  return { lab: lab.subarray(0, n * 3), weights: new Float32Array(n).fill(1), coverage: n / (cols * rows) };
}

export function extractPalette(image: RgbImage, mask: Mask | null): { palette: ColorCluster[]; coverage: number } {
  const samples = sampleLab(image, mask);
  const palette = clusterColors(samples.lab, samples.weights, { k: PALETTE_K, mergeDeltaE: MERGE_DELTA_E });
  return { palette, coverage: samples.coverage };
}
