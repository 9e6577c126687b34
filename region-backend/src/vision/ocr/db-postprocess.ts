/**
 * Post-processing of a DB (Differentiable Binarization) text detector, after PaddleOCR's `DBPostProcess`:
 * threshold the probability map, take each connected region, fit its minimum-area rectangle, keep it when
 * the mean probability inside is high enough, grow it by the unclip distance and map it to image pixels.
 */
import { expandRect, minAreaRect, rectCorners, type Point, type Quad, type RotatedRect } from './geometry.js';

export interface DbOptions {
  /** Pixel threshold on the probability map. */
  thresh: number;
  /** Minimum mean probability inside a box. */
  boxThresh: number;
  /** Unclip distance = area × ratio / perimeter (the shrink applied to text regions in training). */
  unclipRatio: number;
  maxCandidates: number;
  /** Smallest short side in map pixels before unclipping. */
  minSize: number;
}

export const DB_DEFAULTS: DbOptions = { thresh: 0.3, boxThresh: 0.6, unclipRatio: 1.5, maxCandidates: 1000, minSize: 3 };

export interface ProbabilityMap {
  data: Float32Array;
  width: number;
  height: number;
}

export interface DetectedBox {
  /** Corners in image pixels, top-left first, clockwise. */
  quad: Quad;
  /** Mean text probability inside the box. */
  score: number;
}

/**
 * Connected regions (8-neighbourhood) of the thresholded map. For the convex hull only the left-most
 * and right-most pixel of each row matter, so that is all a region keeps.
 */
function regions(map: ProbabilityMap, thresh: number, max: number): Point[][] {
  const { width, height, data } = map;
  const seen = new Uint8Array(width * height);
  const queue = new Int32Array(width * height);
  const out: Point[][] = [];
  for (let start = 0; start < data.length && out.length < max; start++) {
    if (seen[start] || data[start]! <= thresh) continue;
    let head = 0, tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    let minY = height, maxY = -1;
    while (head < tail) {
      const i = queue[head++]!;
      const x = i % width;
      const y = (i - x) / width;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const j = ny * width + nx;
          if (!seen[j] && data[j]! > thresh) {
            seen[j] = 1;
            queue[tail++] = j;
          }
        }
      }
    }
    const rows = maxY - minY + 1;
    const left = new Int32Array(rows).fill(width);
    const right = new Int32Array(rows).fill(-1);
    for (let k = 0; k < tail; k++) {
      const i = queue[k]!;
      const x = i % width;
      const r = (i - x) / width - minY;
      if (x < left[r]!) left[r] = x;
      if (x > right[r]!) right[r] = x;
    }
    const points: Point[] = [];
    for (let r = 0; r < rows; r++) {
      if (right[r]! < 0) continue;
      points.push({ x: left[r]!, y: r + minY });
      if (right[r] !== left[r]) points.push({ x: right[r]!, y: r + minY });
    }
    out.push(points);
  }
  return out;
}

/** Mean probability over the map pixels inside the rectangle (PaddleOCR's "fast" box score). */
function boxScore(map: ProbabilityMap, rect: RotatedRect): number {
  const corners = rectCorners(rect);
  const xs = corners.map((p) => p.x);
  const ys = corners.map((p) => p.y);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(map.width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(map.height - 1, Math.ceil(Math.max(...ys)));
  const { center: c, axis: a } = rect;
  // Half a pixel of slack: a filled polygon includes the pixels its edges pass through.
  const hw = rect.width / 2 + 0.5;
  const hh = rect.height / 2 + 0.5;
  let sum = 0, n = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const dx = x - c.x;
      const dy = y - c.y;
      if (Math.abs(dx * a.x + dy * a.y) > hw || Math.abs(-dx * a.y + dy * a.x) > hh) continue;
      sum += map.data[y * map.width + x]!;
      n++;
    }
  }
  return n ? sum / n : 0;
}

/** Text boxes in image coordinates (`destWidth`×`destHeight`) from a probability map. */
export function boxesFromProbabilityMap(
  map: ProbabilityMap,
  destWidth: number,
  destHeight: number,
  options: DbOptions = DB_DEFAULTS,
): DetectedBox[] {
  const sx = destWidth / map.width;
  const sy = destHeight / map.height;
  const boxes: DetectedBox[] = [];
  for (const points of regions(map, options.thresh, options.maxCandidates)) {
    const rect = minAreaRect(points);
    if (Math.min(rect.width, rect.height) < options.minSize) continue;
    const score = boxScore(map, rect);
    if (score < options.boxThresh) continue;
    const area = rect.width * rect.height;
    const perimeter = 2 * (rect.width + rect.height);
    const grown = expandRect(rect, (area * options.unclipRatio) / perimeter);
    if (Math.min(grown.width, grown.height) < options.minSize + 2) continue;
    const quad = rectCorners(grown).map((p) => ({
      x: Math.min(destWidth, Math.max(0, p.x * sx)),
      y: Math.min(destHeight, Math.max(0, p.y * sy)),
    })) as Quad;
    boxes.push({ quad, score });
  }
  return boxes;
}
