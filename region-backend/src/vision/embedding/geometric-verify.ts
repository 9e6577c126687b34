/**
 * Geometric verification of a search candidate: ORB matches between the query and the candidate (Lowe's
 * ratio test, mutual in the query → candidate direction), then a RANSAC homography. Enough inliers spread over
 * both pictures means the query shows the candidate (cropped, rescaled, framed, rotated, re-encoded); a
 * look-alike of the same kind does not produce a consistent homography. The inliers' bounding boxes say which
 * part of each picture matched. Pure JavaScript (the logo matcher's Hamming k-NN and RANSAC).
 */
import { descriptorWords, matchesFromNearestTwo, ratioMatches, type Match } from '../logo/hamming-knn.js';
import { SimdHamming } from '../logo/hamming-simd.js';
import { ransacHomography } from '../logo/homography-ransac.js';
import type { LocalFeatures } from './local-features.js';

export const VERIFY = {
  ratio: 0.8,
  maxDistance: 80,
  /** RANSAC threshold as a share of the candidate frame's longer side. */
  threshold: 0.012,
  iterations: 500,
  confidence: 0.995,
  /** A verified match needs at least this many inliers … */
  minInliers: 12,
  /** … making at least this share of the ratio-test matches … */
  minInlierShare: 0.2,
  /** … spread over at least this share of both frames (width and height each). */
  minSpread: 0.12,
  /** The homography's local scale (query → candidate) must lie within these bounds … */
  minScale: 0.1,
  maxScale: 10,
  /** … and it may not stretch one axis against the other by more than this factor (near-similarity). */
  maxAnisotropy: 3,
  /**
   * Candidates come best first; once one is verified with this many inliers (the full verified score, see
   * rerank-score.ts) none after it can rank above it, so the rest are not verified (0: verify all).
   */
  decisiveInliers: 80,
};

export interface Verification {
  inliers: number;
  /** Normalised [x, y, w, h] of the matched region in the query and in the candidate. */
  queryBox: [number, number, number, number];
  candidateBox: [number, number, number, number];
  /** Set when the query shows the candidate mirrored (matched with the query's mirror image). */
  mirrored?: boolean;
}

let simd: SimdHamming | null | undefined;
let libraries = 0;

/**
 * Verifies every candidate against one query: all candidates' descriptors go into one matching library, so
 * the query is loaded once (WebAssembly SIMD Hamming k-NN where available, else JavaScript).
 */
export function verifyCandidates(query: LocalFeatures, candidates: (LocalFeatures | null)[], options = VERIFY): (Verification | null)[] {
  const usable = candidates.map((c) => (c && c.count >= 2 && query.count >= options.minInliers ? c : null));
  const total = usable.reduce((n, c) => n + (c?.count ?? 0), 0);
  if (!total) return candidates.map(() => null);
  const library = new Uint8Array(total * 32);
  const offsets: number[] = [];
  let at = 0;
  for (const c of usable) {
    offsets.push(at);
    if (!c) continue;
    library.set(c.descriptors.subarray(0, c.count * 32), at * 32);
    at += c.count;
  }
  if (simd === undefined) simd = SimdHamming.create();
  let nearest: (offset: number, count: number) => Match[];
  if (simd) {
    simd.useLibrary(`search-verify-${libraries++}`, library);
    const knn = simd.useQuery(query.descriptors);
    nearest = (offset, count) => matchesFromNearestTwo(knn.nearestTwo(offset, count), options.ratio, options.maxDistance);
  } else {
    const q = descriptorWords(query.descriptors);
    const l = descriptorWords(library);
    nearest = (offset, count) => ratioMatches(q, query.count, l, offset, count, options.ratio, options.maxDistance);
  }
  const out: (Verification | null)[] = candidates.map(() => null);
  for (let i = 0; i < usable.length; i++) {
    const c = usable[i];
    if (!c) continue;
    out[i] = fitMatches(query, c, nearest(offsets[i]!, c.count), options);
    if (options.decisiveInliers > 0 && (out[i]?.inliers ?? 0) >= options.decisiveInliers) break;
  }
  return out;
}

/**
 * `verifyCandidates` with the features of the query's mirror image (ORB is not mirror-invariant): a mirrored
 * copy of a picture is verified that way; its query box is mapped back to the query as sent.
 */
export function verifyMirrored(mirrored: LocalFeatures, candidates: (LocalFeatures | null)[], options = VERIFY): (Verification | null)[] {
  return verifyCandidates(mirrored, candidates, options).map((v) => {
    if (!v) return null;
    const [x, y, w, h] = v.queryBox;
    return { ...v, queryBox: [Math.max(0, 1 - x - w), y, w, h], mirrored: true };
  });
}

/** The match of `query` in `candidate`, or null when it is not geometrically consistent. */
export function verifyCandidate(query: LocalFeatures, candidate: LocalFeatures, options = VERIFY): Verification | null {
  return verifyCandidates(query, [candidate], options)[0] ?? null;
}

function fitMatches(query: LocalFeatures, candidate: LocalFeatures, matches: Match[], options: typeof VERIFY): Verification | null {
  if (query.count < options.minInliers || candidate.count < options.minInliers) return null;
  if (matches.length < options.minInliers) return null;
  const src = new Float64Array(matches.length * 2);
  const dst = new Float64Array(matches.length * 2);
  matches.forEach(([qi, ci], k) => {
    src[2 * k] = query.points[2 * qi]!;
    src[2 * k + 1] = query.points[2 * qi + 1]!;
    dst[2 * k] = candidate.points[2 * ci]!;
    dst[2 * k + 1] = candidate.points[2 * ci + 1]!;
  });
  const fit = ransacHomography(src, dst, {
    threshold: options.threshold * Math.max(candidate.width, candidate.height),
    maxIterations: options.iterations,
    confidence: options.confidence,
  });
  if (!fit || fit.inliers < options.minInliers || fit.inliers < options.minInlierShare * matches.length) return null;
  if (!plausible(fit.h, options)) return null;
  const queryInliers = inlierBox(src, fit.inlierMask, query.width, query.height);
  const candidateInliers = inlierBox(dst, fit.inlierMask, candidate.width, candidate.height);
  if (queryInliers[2] < options.minSpread || queryInliers[3] < options.minSpread) return null;
  if (candidateInliers[2] < options.minSpread || candidateInliers[3] < options.minSpread) return null;
  // Where each picture shows the other: the other's frame projected through the homography, clipped.
  const inverse = invert3(fit.h);
  const queryBox = (inverse && projectedFrame(inverse, candidate.width, candidate.height, query.width, query.height)) ?? queryInliers;
  const candidateBox = projectedFrame(fit.h, query.width, query.height, candidate.width, candidate.height) ?? candidateInliers;
  return { inliers: fit.inliers, queryBox, candidateBox };
}

function inlierBox(points: Float64Array, mask: Uint8Array, width: number, height: number): [number, number, number, number] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  mask.forEach((m, i) => {
    if (!m) return;
    x0 = Math.min(x0, points[2 * i]!);
    y0 = Math.min(y0, points[2 * i + 1]!);
    x1 = Math.max(x1, points[2 * i]!);
    y1 = Math.max(y1, points[2 * i + 1]!);
  });
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  const x = clamp(x0 / width);
  const y = clamp(y0 / height);
  return [x, y, clamp(x1 / width) - x, clamp(y1 / height) - y];
}

/**
 * A picture shown again (cropped, rescaled, framed, slightly rotated) maps to its source by a near-similarity:
 * the linear part keeps its orientation and both axes scale alike. Chance homographies fitted to a dozen
 * background matches rarely do.
 */
function plausible(h: ArrayLike<number>, options: typeof VERIFY): boolean {
  const [a = 0, b = 0, , c = 0, d = 0] = h as number[];
  const det = a * d - b * c;
  if (!(det > 0)) return false;
  const scale = Math.sqrt(det);
  if (scale < options.minScale || scale > options.maxScale) return false;
  // Singular values of [[a, b], [c, d]]: their ratio is the anisotropy.
  const e = (a + d) / 2;
  const f = (a - d) / 2;
  const g = (c + b) / 2;
  const k = (c - b) / 2;
  const q = Math.hypot(e, k);
  const r = Math.hypot(f, g);
  const smallest = Math.abs(q - r);
  return smallest > 1e-9 && (q + r) / smallest <= options.maxAnisotropy && Math.abs(h[6] as number) < 0.01 && Math.abs(h[7] as number) < 0.01;
}

function invert3(m: ArrayLike<number>): number[] | null {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, i = 0] = m as number[];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-12) return null;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((v) => v / det);
}

/** Bounds of the `w × h` frame mapped by `m`, clipped to the `W × H` frame, normalised; null when outside. */
function projectedFrame(m: ArrayLike<number>, w: number, h: number, W: number, H: number): [number, number, number, number] | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [[0, 0], [w, 0], [w, h], [0, h]] as const) {
    const z = (m[6] as number) * x + (m[7] as number) * y + (m[8] as number);
    if (!(z > 1e-9)) return null;
    xs.push(((m[0] as number) * x + (m[1] as number) * y + (m[2] as number)) / z);
    ys.push(((m[3] as number) * x + (m[4] as number) * y + (m[5] as number)) / z);
  }
  const x0 = Math.max(0, Math.min(...xs)) / W;
  const y0 = Math.max(0, Math.min(...ys)) / H;
  const x1 = Math.min(W, Math.max(...xs)) / W;
  const y1 = Math.min(H, Math.max(...ys)) / H;
  if (x1 <= x0 || y1 <= y0) return null;
  return [x0, y0, x1 - x0, y1 - y0];
}
