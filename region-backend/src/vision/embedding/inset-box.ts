import type { RgbImage } from '../../images/rgb-image.js';
/**
 * Where a picture pasted into a larger one is: a photo in a collage, a product photo on a busy shop page, a
 * picture on a poster. content-box.ts finds a picture on a flat page; here the page around it is itself busy,
 * so the picture is found by its border instead: four straight edges, two across and two down, that close an
 * axis-aligned rectangle, each edge a step along most of its side (the two sides of a pasted border come from
 * different pictures). Image borders are not edges, so a rectangle must lie inside the image.
 *
 * Linear in the number of pixels: the query is shrunk to grey once (`greyCopy`, `INSET_GREY_SIDE` px on the
 * longer side), and every side of a rectangle is measured from prefix sums. Pure JavaScript.
 */

/** 8-bit grey pixels, row-major. */
export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Longer side of the grey copy of the query the border is looked for on. */
export const INSET_GREY_SIDE = 512;

/** The picture in grey (BT.601 luma), shrunk by averaging whole pixels so its longer side is at most `side`. */
export function greyCopy(rgb: RgbImage, side: number): GreyImage {
  const { width, height, data } = rgb;
  const scale = Math.min(1, side / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  // Each grey pixel averages a block of whole pixels: its columns are consecutive, so a picture row adds one
  // run per grey pixel, and its pixel count is the product of its block's column and row counts.
  const columnEnd = new Int32Array(w);
  const columns = new Uint32Array(w);
  for (let x = 0; x < width; x++) {
    const c = Math.min(w - 1, Math.floor((x * w) / width));
    columns[c]!++;
    columnEnd[c] = x + 1;
  }
  const rows = new Uint32Array(h);
  const sums = new Uint32Array(w * h);
  for (let y = 0; y < height; y++) {
    const r = Math.min(h - 1, Math.floor((y * h) / height));
    rows[r]!++;
    const rowAt = r * w;
    let i = y * width * 3;
    for (let c = 0, x = 0; c < w; c++) {
      let run = 0;
      for (const end = columnEnd[c]!; x < end; x++, i += 3) run += 77 * data[i]! + 150 * data[i + 1]! + 29 * data[i + 2]!;
      sums[rowAt + c] = sums[rowAt + c]! + run;
    }
  }
  const out = new Uint8Array(w * h);
  for (let r = 0, k = 0; r < h; r++) {
    const perRow = 256 * Math.max(1, rows[r]!);
    // Rounded half up as Math.round does: a mean of whole-pixel sums is never within rounding of a half but on it.
    for (let c = 0; c < w; c++, k++) out[k] = (sums[k]! / (perRow * Math.max(1, columns[c]!)) + 0.5) | 0;
  }
  return { data: out, width: w, height: h };
}

export interface InsetBoxOptions {
  /** A pixel is on an edge when the grey levels two pixels apart across it differ by at least this. */
  step: number;
  /** An edge segment is at least this share of the image's side (gaps of up to `gap` pixels bridged). */
  minSegment: number;
  gap: number;
  /** Each side of the rectangle must be on an edge along at least this share of its length. */
  support: number;
  /** The rectangle covers at least / at most this share of the image area. */
  minArea: number;
  maxArea: number;
  /** The longest segments of each direction that are paired into rectangles (bounds the work). */
  maxSegments: number;
}

export const INSET_BOX: InsetBoxOptions = { step: 8, minSegment: 0.12, gap: 3, support: 0.7, minArea: 0.05, maxArea: 0.7, maxSegments: 40 };

interface Segment {
  /** The column (a vertical edge) or row (a horizontal one) it lies on. */
  at: number;
  from: number;
  to: number;
}

/** Normalised [x, y, w, h] of a picture pasted inside the image, or null when none is found. */
export function insetBox(grey: GreyImage, options: InsetBoxOptions = INSET_BOX): [number, number, number, number] | null {
  const { width: w, height: h } = grey;
  if (w < 32 || h < 32) return null;
  // Edge maps, widened by a pixel across the edge (a border may fall between two pixels of the grey copy).
  const down = edgeMap(grey, 1, 0, options.step);
  const across = edgeMap(grey, 0, 1, options.step);
  const downPrefix = prefixAlong(down, w, h, false);
  const acrossPrefix = prefixAlong(across, w, h, true);
  const verticals = longest(segments(down, w, h, false, Math.ceil(options.minSegment * h), options.gap), options.maxSegments);
  const horizontals = longest(segments(across, w, h, true, Math.ceil(options.minSegment * w), options.gap), options.maxSegments);
  // Share of a column (rows from..to) or a row (columns from..to) that is on an edge.
  const column = (x: number, from: number, to: number) => (downPrefix[x * (h + 1) + to + 1]! - downPrefix[x * (h + 1) + from]!) / (to - from + 1);
  const row = (y: number, from: number, to: number) => (acrossPrefix[y * (w + 1) + to + 1]! - acrossPrefix[y * (w + 1) + from]!) / (to - from + 1);
  let best: { score: number; area: number; box: [number, number, number, number] } | null = null;
  for (let i = 0; i < verticals.length; i++) {
    for (let j = i + 1; j < verticals.length; j++) {
      const left = verticals[i]!;
      const right = verticals[j]!;
      if (right.at - left.at < 4) continue;
      // Only horizontal segments along most of this pair's span can be its top or bottom (in their order, so
      // ties between rectangles go as they would over every pair).
      const spanning = horizontals.filter((segment) => covers(segment, left.at, right.at));
      for (let k = 0; k < spanning.length; k++) {
        for (let l = k + 1; l < spanning.length; l++) {
          const top = spanning[k]!;
          const bottom = spanning[l]!;
          if (bottom.at - top.at < 4) continue;
          const area = ((right.at - left.at) * (bottom.at - top.at)) / (w * h);
          if (area < options.minArea || area > options.maxArea) continue;
          // Every side close to the segments that proposed it, then measured along its whole length.
          if (!covers(left, top.at, bottom.at) || !covers(right, top.at, bottom.at)) continue;
          const score = Math.min(column(left.at, top.at, bottom.at), column(right.at, top.at, bottom.at), row(top.at, left.at, right.at), row(bottom.at, left.at, right.at));
          if (score < options.support) continue;
          if (!best || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && area > best.area)) {
            // The box just inside the border, so no pixel of the page around it is cut with the picture.
            const x0 = left.at + 1;
            const y0 = top.at + 1;
            best = { score, area, box: [x0 / w, y0 / h, (right.at - x0) / w, (bottom.at - y0) / h] };
          }
        }
      }
    }
  }
  return best?.box ?? null;
}

/** Whether a segment runs along most of from..to (a side it proposes must start and end near it). */
function covers(segment: Segment, from: number, to: number): boolean {
  const overlap = Math.min(segment.to, to) - Math.max(segment.from, from);
  return overlap >= 0.5 * (to - from);
}

/**
 * 1 where the grey step across the pixel (along dx, dy: the levels one pixel before and after) is at least
 * `step` and the largest within two pixels either side across: a border is a ridge of the step across it even
 * where the two pictures' colours are close, where a texture's steps are not lined up. Widened by one pixel
 * across.
 */
function edgeMap(grey: GreyImage, dx: 0 | 1, dy: 0 | 1, step: number): Uint8Array {
  const { data, width: w, height: h } = grey;
  const offset = dy * w + dx;
  const across = new Int16Array(w * h);
  for (let at = offset; at < w * h - offset; at++) across[at] = Math.abs(data[at + offset]! - data[at - offset]!);
  // Steps wrapped around a row's ends (dx) are never ridges there: the margin below skips those pixels.
  const out = new Uint8Array(w * h);
  const margin = 3;
  for (let y = dy * margin; y < h - dy * margin; y++) {
    for (let x = dx * margin; x < w - dx * margin; x++) {
      const at = y * w + x;
      const v = across[at]!;
      if (v < step || v < across[at - 2 * offset]! || v < across[at + 2 * offset]! || v <= across[at - 3 * offset]! || v <= across[at + 3 * offset]!) continue;
      out[at] = 1;
      out[at - offset] = 1;
      out[at + offset] = 1;
    }
  }
  return out;
}

/** Prefix counts of an edge map along each column (`rows` false: index x * (h + 1) + y) or each row. */
function prefixAlong(edges: Uint8Array, w: number, h: number, rows: boolean): Int32Array {
  const lines = rows ? h : w;
  const length = rows ? w : h;
  const out = new Int32Array(lines * (length + 1));
  for (let line = 0; line < lines; line++) {
    let sum = 0;
    for (let k = 0; k < length; k++) {
      sum += edges[rows ? line * w + k : k * w + line]!;
      out[line * (length + 1) + k + 1] = sum;
    }
  }
  return out;
}

/** Runs of edge pixels along each column (or row) of at least `minLength`, gaps of up to `gap` bridged. */
function segments(edges: Uint8Array, w: number, h: number, rows: boolean, minLength: number, gap: number): Segment[] {
  const lines = rows ? h : w;
  const length = rows ? w : h;
  const out: Segment[] = [];
  for (let line = 1; line < lines - 1; line++) {
    let start = -1;
    let last = -1;
    for (let k = 0; k <= length; k++) {
      const on = k < length && edges[rows ? line * w + k : k * w + line] === 1;
      if (on) {
        if (start < 0 || k - last > gap + 1) {
          if (start >= 0 && last - start + 1 >= minLength) out.push({ at: line, from: start, to: last });
          start = k;
        }
        last = k;
      }
    }
    if (start >= 0 && last - start + 1 >= minLength) out.push({ at: line, from: start, to: last });
  }
  return out;
}

/**
 * The `count` longest segments, at most one per line and its neighbours (the widened edge covers three lines),
 * in the order of their lines.
 */
function longest(list: Segment[], count: number): Segment[] {
  const sorted = [...list].sort((a, b) => b.to - b.from - (a.to - a.from));
  const kept: Segment[] = [];
  for (const s of sorted) {
    if (kept.length >= count) break;
    if (kept.some((k) => Math.abs(k.at - s.at) <= 1 && k.from <= s.to && s.from <= k.to)) continue;
    kept.push(s);
  }
  return kept.sort((a, b) => a.at - b.at);
}
