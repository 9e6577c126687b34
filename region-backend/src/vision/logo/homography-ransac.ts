/**
 * RANSAC homography estimation in plain JavaScript: minimal 4-point solves, adaptive iteration count, then a
 * least-squares refit on the inliers. Replaces OpenCV's findHomography here because most calls see only
 * background matches (a reference that is not in the picture) and must run to their iteration cap; OpenCV's
 * wasm build took ~40 ms for 700 iterations on 50 points, this takes ~1–2 ms.
 */

export interface HomographyFit {
  /** Row-major 3×3, h[8] = 1; maps source points to destination points. */
  h: Float64Array;
  /** 1 for inliers of `h`, per correspondence. */
  inlierMask: Uint8Array;
  inliers: number;
}

export interface RansacOptions {
  /** Largest reprojection error of an inlier, in destination pixels. */
  threshold: number;
  maxIterations: number;
  confidence: number;
  /** Seed of the sampler: the same input gives the same answer. */
  seed?: number;
}

/** Solves A x = b (n×n, row-major, modified in place) by Gaussian elimination; null when singular. */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array | null {
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r * n + c]!) > Math.abs(a[p * n + c]!)) p = r;
    if (Math.abs(a[p * n + c]!) < 1e-12) return null;
    if (p !== c) {
      for (let k = 0; k < n; k++) [a[c * n + k], a[p * n + k]] = [a[p * n + k]!, a[c * n + k]!];
      [b[c], b[p]] = [b[p]!, b[c]!];
    }
    for (let r = c + 1; r < n; r++) {
      const f = a[r * n + c]! / a[c * n + c]!;
      if (f === 0) continue;
      for (let k = c; k < n; k++) a[r * n + k]! -= f * a[c * n + k]!;
      b[r]! -= f * b[c]!;
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r]!;
    for (let k = r + 1; k < n; k++) s -= a[r * n + k]! * x[k]!;
    x[r] = s / a[r * n + r]!;
  }
  return x;
}

/** Similarity transform that centres points on their mean with mean distance √2 (Hartley normalisation). */
function normaliser(points: Float64Array, indices: ArrayLike<number>): [number, number, number] {
  let mx = 0;
  let my = 0;
  for (let i = 0; i < indices.length; i++) {
    mx += points[2 * indices[i]!]!;
    my += points[2 * indices[i]! + 1]!;
  }
  mx /= indices.length;
  my /= indices.length;
  let d = 0;
  for (let i = 0; i < indices.length; i++) d += Math.hypot(points[2 * indices[i]!]! - mx, points[2 * indices[i]! + 1]! - my);
  d /= indices.length;
  return [d > 0 ? Math.SQRT2 / d : 1, mx, my];
}

/**
 * Least-squares homography (h33 = 1) through the given correspondences, in normalised coordinates:
 * the exact solution for four points, the linear fit for more.
 */
export function fitHomography(src: Float64Array, dst: Float64Array, indices: ArrayLike<number>): Float64Array | null {
  const [ss, sx, sy] = normaliser(src, indices);
  const [ds, dx, dy] = normaliser(dst, indices);
  const ata = new Float64Array(64);
  const atb = new Float64Array(8);
  const row = new Float64Array(8);
  const accumulate = (rhs: number) => {
    for (let i = 0; i < 8; i++) {
      const ri = row[i]!;
      if (ri === 0) continue;
      atb[i]! += ri * rhs;
      for (let j = 0; j < 8; j++) ata[i * 8 + j]! += ri * row[j]!;
    }
  };
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k]!;
    const x = (src[2 * i]! - sx) * ss;
    const y = (src[2 * i + 1]! - sy) * ss;
    const u = (dst[2 * i]! - dx) * ds;
    const v = (dst[2 * i + 1]! - dy) * ds;
    row.set([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    accumulate(u);
    row.set([0, 0, 0, x, y, 1, -v * x, -v * y]);
    accumulate(v);
  }
  const n = solve(ata, atb, 8);
  if (!n) return null;
  // Undo the normalisations: H = Td⁻¹ · Hn · Ts.
  const hn = [n[0]!, n[1]!, n[2]!, n[3]!, n[4]!, n[5]!, n[6]!, n[7]!, 1];
  const ts = [ss, 0, -ss * sx, 0, ss, -ss * sy, 0, 0, 1];
  const tdInv = [1 / ds, 0, dx, 0, 1 / ds, dy, 0, 0, 1];
  const m = multiply(tdInv, multiply(hn, ts));
  const scale = m[8]!;
  if (Math.abs(scale) < 1e-12) return null;
  return Float64Array.from(m, (v) => v / scale);
}

function multiply(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) out[r * 3 + c]! += a[r * 3 + k]! * b[k * 3 + c]!;
  return out;
}

function countInliers(h: Float64Array, src: Float64Array, dst: Float64Array, n: number, threshold2: number, mask: Uint8Array | null): number {
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = src[2 * i]!;
    const y = src[2 * i + 1]!;
    const w = h[6]! * x + h[7]! * y + h[8]!;
    let inlier = false;
    if (w > 1e-9) {
      const du = (h[0]! * x + h[1]! * y + h[2]!) / w - dst[2 * i]!;
      const dv = (h[3]! * x + h[4]! * y + h[5]!) / w - dst[2 * i + 1]!;
      inlier = du * du + dv * dv <= threshold2;
    }
    if (inlier) count++;
    if (mask) mask[i] = inlier ? 1 : 0;
  }
  return count;
}

const cross = (p: Float64Array, a: number, b: number, c: number) =>
  (p[2 * b]! - p[2 * a]!) * (p[2 * c + 1]! - p[2 * a + 1]!) - (p[2 * b + 1]! - p[2 * a + 1]!) * (p[2 * c]! - p[2 * a]!);

/** Four points of which no three are (nearly) collinear, turning the same way in both images. */
function goodSample(src: Float64Array, dst: Float64Array, s: Uint32Array): boolean {
  for (const [a, b, c] of [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]] as const) {
    const cs = cross(src, s[a]!, s[b]!, s[c]!);
    const cd = cross(dst, s[a]!, s[b]!, s[c]!);
    if (Math.abs(cs) < 1e-3 || Math.abs(cd) < 1e-3 || Math.sign(cs) !== Math.sign(cd)) return false;
  }
  return true;
}

/** Best homography by RANSAC, refined on its inliers; null with fewer than 4 correspondences or no model. */
export function ransacHomography(src: Float64Array, dst: Float64Array, options: RansacOptions): HomographyFit | null {
  const n = src.length / 2;
  if (n < 4) return null;
  let seed = (options.seed ?? 0x9e3779b9) >>> 0;
  const random = () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x297a2d39) >>> 0;
    return ((seed ^ (seed >>> 12)) >>> 0) / 4294967296;
  };
  const threshold2 = options.threshold * options.threshold;
  const sample = new Uint32Array(4);
  let best: Float64Array | null = null;
  let bestCount = 0;
  let limit = options.maxIterations;
  for (let iteration = 0; iteration < limit; iteration++) {
    for (let k = 0; k < 4; k++) {
      let pick: number;
      do pick = Math.floor(random() * n);
      while (sample.subarray(0, k).includes(pick));
      sample[k] = pick;
    }
    if (!goodSample(src, dst, sample)) continue;
    const h = fitHomography(src, dst, sample);
    if (!h) continue;
    const count = countInliers(h, src, dst, n, threshold2, null);
    if (count > bestCount) {
      best = h;
      bestCount = count;
      // Iterations still needed to see an all-inlier sample with the requested confidence.
      const w = count / n;
      const needed = Math.log(1 - options.confidence) / Math.log(Math.max(1e-12, 1 - w ** 4));
      limit = Math.min(options.maxIterations, Math.ceil(needed));
    }
  }
  if (!best || bestCount < 4) return null;
  // Refit on the inliers until the set stops growing (at most a few rounds).
  const mask = new Uint8Array(n);
  let inliers = countInliers(best, src, dst, n, threshold2, mask);
  for (let round = 0; round < 3; round++) {
    const indices: number[] = [];
    mask.forEach((m, i) => m && indices.push(i));
    const refined = fitHomography(src, dst, indices);
    if (!refined) break;
    const refinedMask = new Uint8Array(n);
    const refinedCount = countInliers(refined, src, dst, n, threshold2, refinedMask);
    if (refinedCount < inliers) break;
    best = refined;
    mask.set(refinedMask);
    const grew = refinedCount > inliers;
    inliers = refinedCount;
    if (!grew) break;
  }
  return { h: best, inlierMask: mask, inliers };
}
