/**
 * Cheap whole-picture statistics the scene and tagging rules use: brightness, saturation, colourfulness,
 * texture, the share of sky-, water-, vegetation-, snow- and sand-like pixels in the regions of the picture
 * where they usually are, and the dominant basic colours (named as the colour services name them: CIELAB
 * palette, basic term of the nearest ISCC–NBS block). Computed on a copy at most 160 pixels wide.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { BasicColorId } from '@iris/shared';
import { limitSide } from '../runtime/pixels.js';
import { nearestIsccNbs } from '../color/color-names.js';
import { extractPalette } from '../color/palette-extraction.js';
import { rgbToHsv } from './hsv.js';

export interface ImageStats {
  /** Mean luma, 0..1. */
  brightness: number;
  /** Share of pixels with luma below 0.2. */
  dark: number;
  /** Mean HSV saturation, 0..1. */
  saturation: number;
  /** Hasler & Süsstrunk colourfulness (0 for gray pictures, ~100+ for very colourful ones). */
  colourfulness: number;
  /** Share of pixels with a strong luma gradient (texture and edges). */
  edges: number;
  /** Share of blue-sky pixels in the top third. */
  skyBlueTop: number;
  /** Share of bright unsaturated pixels (overcast sky, but also white walls) in the top third. */
  brightTop: number;
  /** Share of water-blue pixels in the bottom half. */
  waterBottom: number;
  /** Share of vegetation-green pixels. */
  green: number;
  /** Share of snow-white pixels (bright, unsaturated), overall and in the bottom half (ground). */
  white: number;
  whiteBottom: number;
  /** Share of sand-like pixels in the bottom half. */
  sandBottom: number;
  /** Share of near-white paper-like background pixels and of dark ink-like pixels (documents). */
  paper: number;
  ink: number;
  /** Basic colour shares, largest first. */
  colors: { id: BasicColorId; share: number }[];
}

export function imageStats(full: RgbImage): ImageStats {
  const img = limitSide(full, 160);
  const { width: W, height: H, data } = img;
  const n = W * H;
  const luma = new Float32Array(n);
  let sumL = 0, dark = 0, sumS = 0, skyBlueTop = 0, brightTop = 0, topN = 0, waterBottom = 0, sandBottom = 0, whiteBottom = 0, bottomN = 0;
  let green = 0, white = 0, paper = 0, ink = 0;
  let sumRg = 0, sumYb = 0, sumRg2 = 0, sumYb2 = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      const r = data[p * 3]!, g = data[p * 3 + 1]!, b = data[p * 3 + 2]!;
      const l = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
      luma[p] = l;
      sumL += l;
      if (l < 0.2) dark++;
      const [h, s, v] = rgbToHsv(r, g, b);
      sumS += s;
      const rg = r - g, yb = 0.5 * (r + g) - b;
      sumRg += rg; sumYb += yb; sumRg2 += rg * rg; sumYb2 += yb * yb;
      const isBlue = h >= 180 && h <= 250 && s > 0.15 && v > 0.35;
      const isGreen = h >= 60 && h <= 170 && s > 0.18 && v > 0.15;
      const isWhite = v > 0.8 && s < 0.12;
      if (isGreen) green++;
      if (isWhite) white++;
      if (v > 0.75 && s < 0.15) paper++;
      if (l < 0.35 && s < 0.35) ink++;
      if (y < H / 3) {
        topN++;
        if (isBlue) skyBlueTop++;
        else if (v > 0.75 && s < 0.2) brightTop++;
      }
      if (y >= H / 2) {
        bottomN++;
        if (h >= 170 && h <= 250 && s > 0.2 && v > 0.2) waterBottom++;
        if (h >= 20 && h <= 50 && s > 0.15 && s < 0.6 && v > 0.5) sandBottom++;
        if (isWhite) whiteBottom++;
      }
    }
  }
  let edges = 0;
  for (let y = 1; y < H - 1; y++) {
    for (let x = 1; x < W - 1; x++) {
      const p = y * W + x;
      const gx = luma[p + 1]! - luma[p - 1]!;
      const gy = luma[p + W]! - luma[p - W]!;
      if (gx * gx + gy * gy > 0.01) edges++;
    }
  }
  const meanRg = sumRg / n, meanYb = sumYb / n;
  const sdRg = Math.sqrt(Math.max(0, sumRg2 / n - meanRg * meanRg));
  const sdYb = Math.sqrt(Math.max(0, sumYb2 / n - meanYb * meanYb));
  return {
    brightness: sumL / n,
    dark: dark / n,
    saturation: sumS / n,
    colourfulness: Math.sqrt(sdRg * sdRg + sdYb * sdYb) + 0.3 * Math.sqrt(meanRg * meanRg + meanYb * meanYb),
    edges: edges / Math.max(1, (W - 2) * (H - 2)),
    skyBlueTop: topN ? skyBlueTop / topN : 0,
    brightTop: topN ? brightTop / topN : 0,
    waterBottom: bottomN ? waterBottom / bottomN : 0,
    green: green / n,
    white: white / n,
    whiteBottom: bottomN ? whiteBottom / bottomN : 0,
    sandBottom: bottomN ? sandBottom / bottomN : 0,
    paper: paper / n,
    ink: ink / n,
    colors: basicColorShares(img),
  };
}

function basicColorShares(img: RgbImage): { id: BasicColorId; share: number }[] {
  const shares = new Map<BasicColorId, number>();
  for (const cluster of extractPalette(img, null).palette) {
    const id = nearestIsccNbs(cluster.lab).basic;
    shares.set(id, (shares.get(id) ?? 0) + cluster.weight);
  }
  return [...shares].map(([id, share]) => ({ id, share })).sort((a, b) => b.share - a.share);
}
