import type { RgbImage } from '../../images/rgb-image.js';
/**
 * A text banner across a query picture: a full-width band of one flat colour with high-contrast lettering on
 * it ("SALE 50% OFF" over a product photo). Such a band hides part of the picture and, worse, its letters are
 * the strongest corners and edges of the image: they pull the query's vector towards "text" and take most of
 * its ORB keypoints. Found here, the band is left out of a second query vector (the picture without it) and of
 * the query's keypoints (search-embedding.ts, local-features.ts). Pure JavaScript on fewer than 512 rows × 512
 * samples: every row is tested as a band's first row and followed for at most a band's height.
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
  const { width, height } = rgb;
  if (width < 32 || height < 32) return null;
  // Fewer than 512 samples per row and 512 rows: the work is bounded whatever the picture's size.
  const step = Math.max(1, Math.floor(width / 256));
  const rowStep = Math.max(1, Math.floor(height / 256));
  const rows = Math.ceil(height / rowStep);
  const colours = new Int16Array(rows * 3);
  const strong = new Uint8Array(rows);
  for (let j = 0; j < rows; j++) strong[j] = startsRun(rgb, j * rowStep, step, colours.subarray(j * 3, j * 3 + 3), options) ? 1 : 0;
  const maxGap = Math.max(1, Math.round((options.maxGap * height) / rowStep));
  const longest = Math.ceil((options.maxHeight * height) / rowStep) + 1;
  let best: { top: number; bottom: number; score: number } | null = null;
  let j = 0;
  while (j < rows) {
    // A band starts under a sharp edge (checked again with its end below): other rows are not followed.
    if (!strong[j] || !sharpEdge(rgb, j * rowStep, 'top', step, options)) {
      j++;
      continue;
    }
    // Rows sharing this row's colour: letter rows need only minShare of it; the band ends at its last
    // well-covered row. A run longer than a banner can be is not followed further.
    const ref = colours.subarray(j * 3, j * 3 + 3);
    let last = j;
    let gap = 0;
    for (let r = j + 1; r < rows && gap <= maxGap && r - j <= longest; r++) {
      const share = shareNear(rgb, r * rowStep, step, ref, options.tolerance);
      if (share >= options.minShare) {
        gap = 0;
        if (share >= options.edgeShare) last = r;
      } else gap++;
    }
    const top = j * rowStep;
    const bottom = Math.min(height, (last + 1) * rowStep);
    const score = checkBand(rgb, top, bottom, ref, step, options);
    if (score !== null && (!best || score > best.score)) best = { top, bottom, score };
    j = score !== null ? last + 1 : j + 1;
  }
  if (!best) return null;
  const margin = Math.round(options.margin * height);
  const top = Math.max(0, best.top - margin);
  const bottom = Math.min(height, best.bottom + margin);
  return { top: top / height, height: (bottom - top) / height };
}

const histogram = new Uint32Array(768);

/** Whether row y is mostly of one colour (its per-channel median, written to `colour`). */
function startsRun(rgb: RgbImage, y: number, step: number, colour: Int16Array, options: TextBannerOptions): boolean {
  const { width, data } = rgb;
  const counts = histogram.fill(0);
  let n = 0;
  for (let x = 0; x < width; x += step, n++) {
    const i = (y * width + x) * 3;
    counts[data[i]!]!++;
    counts[256 + data[i + 1]!]!++;
    counts[512 + data[i + 2]!]!++;
  }
  for (let k = 0; k < 3; k++) {
    let seen = 0;
    let v = 0;
    while (v < 255 && (seen += counts[k * 256 + v]!) <= n >> 1) v++;
    colour[k] = v;
  }
  return shareNear(rgb, y, step, colour, options.tolerance) >= options.edgeShare;
}

/** The band's lettering share when rows [top, bottom) make a banner of colour `ref`, else null. */
function checkBand(rgb: RgbImage, top: number, bottom: number, ref: Int16Array, step: number, options: TextBannerOptions): number | null {
  const { width, height, data } = rgb;
  const rows = bottom - top;
  if (rows < options.minHeight * height || rows > options.maxHeight * height) return null;
  // A sharp edge across the picture on each side that is not the picture's border: a banner is pasted on the
  // picture, while a plain sky, wall or shadow fades into it.
  if (top < 2 && bottom > height - 2) return null;
  if (!sharpEdge(rgb, top, 'top', step, options) || !sharpEdge(rgb, bottom, 'bottom', step, options)) return null;
  let letters = 0;
  let total = 0;
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * 3;
      const d = Math.abs(data[i]! - ref[0]!) + Math.abs(data[i + 1]! - ref[1]!) + Math.abs(data[i + 2]! - ref[2]!);
      if (d > options.contrast) letters++;
      total++;
    }
  }
  const share = letters / total;
  return share >= options.minLetterShare ? share : null;
}

/**
 * Whether a band whose first row is `row` (side 'top') or whose rows end before `row` (side 'bottom') has a
 * sharp edge on that side, or that side is the picture's border. JPEG's colour subsampling and resizing blur an
 * edge over a few rows: the sharpest of 2–5 rows out counts.
 */
function sharpEdge(rgb: RgbImage, row: number, side: 'top' | 'bottom', step: number, options: TextBannerOptions): boolean {
  const inside = side === 'top' ? row + 1 : row - 2;
  const outside = (side === 'top' ? [row - 2, row - 3, row - 4, row - 5] : [row + 1, row + 2, row + 3, row + 4]).filter((r) => r >= 0 && r < rgb.height);
  if (!outside.length) return true;
  return outside.some((r) => edgeReaches(rgb, r, inside, step, options.contrast / 4, options.minEdgeShare));
}

/**
 * Whether at least `share` of the sampled columns differ in colour between rows `a` and `b` by more than
 * `contrast` (sum of channels). Most rows of a photo are far from it: the count stops once it cannot get there.
 */
function edgeReaches(rgb: RgbImage, a: number, b: number, step: number, contrast: number, share: number): boolean {
  const { width, data } = rgb;
  const down = (b - a) * width * 3;
  const total = Math.ceil(width / step);
  let n = 0;
  let left = total;
  // Plain loops, not a per-pixel callback: this runs on sampled pixels of every row of every query.
  for (let i = a * width * 3; left > 0; i += step * 3, left--) {
    if ((n + left) / total < share) return false;
    if (Math.abs(data[i]! - data[i + down]!) + Math.abs(data[i + 1]! - data[i + down + 1]!) + Math.abs(data[i + 2]! - data[i + down + 2]!) > contrast) n++;
  }
  return n / total >= share;
}

/** Share of row `y`'s columns sampled every `step` pixels whose every channel is within `tol` of `ref`. */
function shareNear(rgb: RgbImage, y: number, step: number, ref: Int16Array, tol: number): number {
  const { width, data } = rgb;
  const [r, g, b] = [ref[0]!, ref[1]!, ref[2]!];
  let n = 0;
  let total = 0;
  for (let x = 0, i = y * width * 3; x < width; x += step, i += step * 3) {
    total++;
    if (Math.abs(data[i]! - r) <= tol && Math.abs(data[i + 1]! - g) <= tol && Math.abs(data[i + 2]! - b) <= tol) n++;
  }
  return n / total;
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
