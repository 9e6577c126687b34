import type { RgbImage } from '../../images/rgb-image.js';
/**
 * A text banner across a query picture: a full-width band of one flat colour with high-contrast lettering on
 * it ("SALE 50% OFF" over a product photo). Such a band hides part of the picture and, worse, its letters are
 * the strongest corners and edges of the image: they pull the query's vector towards "text" and take most of
 * its ORB keypoints. Found here, the band is left out of a second query vector (the picture without it) and of
 * the query's keypoints (search-embedding.ts). Pure JavaScript, linear in the pixels sampled (at most about
 * 256 per row).
 */

export interface TextBannerOptions {
  /** A pixel has the band's colour when every channel is within this of it. */
  tolerance: number;
  /** The band's first and last rows (its padding around the letters) have at least this share of its colour … */
  edgeShare: number;
  /** … the rows between at least this share (letters cover the rest; gaps of `maxGap` of the height are bridged). */
  minShare: number;
  maxGap: number;
  /** Band height as a share of the picture's. */
  minHeight: number;
  maxHeight: number;
  /** Lettering: at least this share of the band's pixels contrast with it by more than `contrast` (sum of channels). */
  minLetterShare: number;
  contrast: number;
  /** The band's edges are sharp: across each edge (3 to 6 rows), at least this share of columns change by more than `contrast` / 4. */
  minEdgeShare: number;
  /** Rows added on each side of the band found (anti-aliasing, shadows), as a share of the height. */
  margin: number;
}

export const TEXT_BANNER: TextBannerOptions = {
  tolerance: 32,
  edgeShare: 0.75,
  minShare: 0.25,
  maxGap: 0.01,
  minHeight: 0.04,
  maxHeight: 0.4,
  minLetterShare: 0.04,
  contrast: 180,
  minEdgeShare: 0.6,
  margin: 0.01,
};

/** Rows [top, top + height) of the banner as fractions of the picture's height, or null when there is none. */
export function textBanner(rgb: RgbImage, options: TextBannerOptions = TEXT_BANNER): { top: number; height: number } | null {
  const { width, height, data } = rgb;
  if (width < 32 || height < 32) return null;
  const step = Math.max(1, Math.floor(width / 256));
  const colours = new Int16Array(height * 3);
  const own = new Float32Array(height);
  const channel: number[][] = [[], [], []];
  for (let y = 0; y < height; y++) {
    for (const c of channel) c.length = 0;
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * 3;
      channel[0]!.push(data[i]!);
      channel[1]!.push(data[i + 1]!);
      channel[2]!.push(data[i + 2]!);
    }
    for (let k = 0; k < 3; k++) colours[y * 3 + k] = median(channel[k]!);
    own[y] = shareNear(rgb, y, step, colours, y * 3, options.tolerance);
  }
  const maxGap = Math.max(1, Math.round(options.maxGap * height));
  let best: { top: number; bottom: number; score: number } | null = null;
  let y = 0;
  while (y < height) {
    if (own[y]! < options.edgeShare) {
      y++;
      continue;
    }
    // Rows sharing the first row's colour: letter rows need only minShare of it; the band ends at its last
    // well-covered row.
    const ref = y * 3;
    let bottom = y + 1;
    let gap = 0;
    for (let r = y + 1; r < height && gap <= maxGap; r++) {
      const share = shareNear(rgb, r, step, colours, ref, options.tolerance);
      if (share >= options.minShare) {
        gap = 0;
        if (share >= options.edgeShare) bottom = r + 1;
      } else gap++;
    }
    const score = checkBand(rgb, y, bottom, colours, ref, step, options);
    if (score !== null && (!best || score > best.score)) best = { top: y, bottom, score };
    y = bottom + 1;
  }
  if (!best) return null;
  const margin = Math.round(options.margin * height);
  const top = Math.max(0, best.top - margin);
  const bottom = Math.min(height, best.bottom + margin);
  return { top: top / height, height: (bottom - top) / height };
}

/** The band's lettering share when rows [top, bottom) make a banner of colour `colours[ref..]`, else null. */
function checkBand(rgb: RgbImage, top: number, bottom: number, colours: Int16Array, ref: number, step: number, options: TextBannerOptions): number | null {
  const { width, height, data } = rgb;
  const rows = bottom - top;
  if (rows < options.minHeight * height || rows > options.maxHeight * height) return null;
  // A sharp edge across the picture on each side that is not the picture's border: a banner is pasted on the
  // picture, while a plain sky, wall or shadow fades into it.
  // JPEG's colour subsampling and resizing blur the edge over a few rows: the sharpest of 2–5 rows out counts.
  const sides = [
    { inside: top + 1, outside: [top - 2, top - 3, top - 4, top - 5] },
    { inside: bottom - 2, outside: [bottom + 1, bottom + 2, bottom + 3, bottom + 4] },
  ]
    .map((side) => ({ ...side, outside: side.outside.filter((r) => r >= 0 && r < height) }))
    .filter((side) => side.outside.length);
  if (!sides.length) return null;
  for (const { inside, outside } of sides) {
    if (Math.max(...outside.map((r) => edgeShare(rgb, r, inside, step, options.contrast / 4))) < options.minEdgeShare) return null;
  }
  let letters = 0;
  let total = 0;
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * 3;
      const d = Math.abs(data[i]! - colours[ref]!) + Math.abs(data[i + 1]! - colours[ref + 1]!) + Math.abs(data[i + 2]! - colours[ref + 2]!);
      if (d > options.contrast) letters++;
      total++;
    }
  }
  const share = letters / total;
  return share >= options.minLetterShare ? share : null;
}

/** Share of sampled columns whose colour differs between rows `a` and `b` by more than `contrast` (sum of channels). */
function edgeShare(rgb: RgbImage, a: number, b: number, step: number, contrast: number): number {
  const { width, data } = rgb;
  let n = 0;
  let total = 0;
  for (let x = 0; x < width; x += step) {
    const i = (a * width + x) * 3;
    const j = (b * width + x) * 3;
    total++;
    if (Math.abs(data[i]! - data[j]!) + Math.abs(data[i + 1]! - data[j + 1]!) + Math.abs(data[i + 2]! - data[j + 2]!) > contrast) n++;
  }
  return n / total;
}

function shareNear(rgb: RgbImage, y: number, step: number, colours: Int16Array, ref: number, tol: number): number {
  const { width, data } = rgb;
  let n = 0;
  let total = 0;
  for (let x = 0; x < width; x += step) {
    const i = (y * width + x) * 3;
    total++;
    if (Math.abs(data[i]! - colours[ref]!) <= tol && Math.abs(data[i + 1]! - colours[ref + 1]!) <= tol && Math.abs(data[i + 2]! - colours[ref + 2]!) <= tol) n++;
  }
  return n / total;
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[values.length >> 1] ?? 0;
}

/** The picture with rows [top, top + height) (fractions of its height) cut out and the rest joined. */
export function withoutRows(rgb: RgbImage, rows: { top: number; height: number }): RgbImage {
  const { width, height, data } = rgb;
  const top = Math.max(0, Math.floor(rows.top * height));
  const bottom = Math.min(height, Math.max(top, Math.ceil((rows.top + rows.height) * height)));
  const stride = width * 3;
  const out = new Uint8Array((height - (bottom - top)) * stride);
  out.set(data.subarray(0, top * stride), 0);
  out.set(data.subarray(bottom * stride, height * stride), top * stride);
  return { data: out, width, height: height - (bottom - top) };
}
