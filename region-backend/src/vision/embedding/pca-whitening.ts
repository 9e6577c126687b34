/**
 * PCA-whitening with dimension reduction: y = L2(P · (x − mean)), where the rows of P are the leading
 * eigenvectors of the descriptors' covariance scaled by (λ + shrink)^−power. power 0 is plain PCA, 0.5 full
 * whitening; shrink (relative to the mean retained eigenvalue) keeps noisy low-variance directions from being
 * blown up when the fitting sample is small. Learned offline (see eval/embedding.eval.ts --fit), applied in
 * worker threads.
 */
import { l2normalise } from './feature-pooling.js';
import { leadingEigen, symmetricEigen } from './symmetric-eigen.js';

export interface Whitening {
  inputDim: number;
  outputDim: number;
  mean: Float32Array;
  /** outputDim × inputDim, row-major. */
  projection: Float32Array;
}

export interface WhiteningOptions {
  dim: number;
  power: number;
  shrink: number;
}

export function applyWhitening(w: Whitening, x: Float32Array): Float32Array {
  if (x.length !== w.inputDim) throw new Error(`whitening expects ${w.inputDim} dimensions, got ${x.length}`);
  const centred = new Float32Array(w.inputDim);
  for (let i = 0; i < w.inputDim; i++) centred[i] = x[i]! - w.mean[i]!;
  const out = new Float32Array(w.outputDim);
  const n = w.inputDim;
  const tail = n - (n % 4);
  for (let r = 0; r < w.outputDim; r++) {
    const row = r * n;
    // Four running sums: independent additions pipeline, one chain of n would wait on each.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < tail; i += 4) {
      s0 += w.projection[row + i]! * centred[i]!;
      s1 += w.projection[row + i + 1]! * centred[i + 1]!;
      s2 += w.projection[row + i + 2]! * centred[i + 2]!;
      s3 += w.projection[row + i + 3]! * centred[i + 3]!;
    }
    for (let i = tail; i < n; i++) s0 += w.projection[row + i]! * centred[i]!;
    out[r] = s0 + s1 + (s2 + s3);
  }
  return l2normalise(out);
}

/** Covariance eigen-decomposition of a sample of descriptors (each of the same length); reusable for several fits. */
export interface PcaBasis {
  inputDim: number;
  mean: Float32Array;
  values: Float64Array;
  vectors: Float64Array;
}

/**
 * `keep`: how many leading components are needed (all when omitted; fewer is much faster). With fewer samples
 * than dimensions the decomposition runs on the samples' Gram matrix instead of the covariance (same
 * eigenvalues, eigenvectors mapped back through the samples), which is several times cheaper.
 */
export function pcaBasis(samples: Float32Array[], keep?: number): PcaBasis {
  const first = samples[0];
  if (!first || samples.length < 2) throw new Error('PCA needs at least two samples');
  const n = first.length;
  const count = samples.length;
  const mean64 = new Float64Array(n);
  for (const s of samples) for (let i = 0; i < n; i++) mean64[i] = mean64[i]! + s[i]!;
  for (let i = 0; i < n; i++) mean64[i] = mean64[i]! / count;
  const centred = samples.map((s) => Float64Array.from(s, (v, i) => v - mean64[i]!));
  const mean = Float32Array.from(mean64);
  if (count < n) return gramBasis(centred, n, mean, keep);
  const cov = new Float64Array(n * n);
  for (const c of centred) {
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      if (ci === 0) continue;
      const row = i * n;
      for (let j = i; j < n; j++) cov[row + j] = cov[row + j]! + ci * c[j]!;
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      const v = cov[i * n + j]! / count;
      cov[i * n + j] = v;
      cov[j * n + i] = v;
    }
  }
  const { values, vectors } = keep && keep < n / 2 ? leadingEigen(cov, n, keep) : symmetricEigen(cov, n);
  return { inputDim: n, mean, values, vectors };
}

function gramBasis(centred: Float64Array[], n: number, mean: Float32Array, keep?: number): PcaBasis {
  const count = centred.length;
  const gram = new Float64Array(count * count);
  for (let a = 0; a < count; a++) {
    const xa = centred[a]!;
    for (let b = a; b < count; b++) {
      const xb = centred[b]!;
      let s = 0;
      for (let i = 0; i < n; i++) s += xa[i]! * xb[i]!;
      gram[a * count + b] = s / count;
      gram[b * count + a] = s / count;
    }
  }
  const k = Math.min(keep ?? count, count);
  const eig = k < count / 2 ? leadingEigen(gram, count, k) : symmetricEigen(gram, count);
  const rows = Math.min(k, eig.values.length);
  const values = eig.values.slice(0, rows);
  const vectors = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) {
    // u = Xᵀ v / sqrt(count · λ): unit-length eigenvector of the covariance.
    const lambda = values[r]!;
    if (lambda <= 1e-12) continue;
    const scale = 1 / Math.sqrt(count * lambda);
    const out = r * n;
    for (let a = 0; a < count; a++) {
      const c = eig.vectors[r * count + a]! * scale;
      if (c === 0) continue;
      const xa = centred[a]!;
      for (let i = 0; i < n; i++) vectors[out + i] = vectors[out + i]! + c * xa[i]!;
    }
  }
  return { inputDim: n, mean, values, vectors };
}

export function whiteningFromBasis(basis: PcaBasis, options: WhiteningOptions): Whitening {
  const { inputDim } = basis;
  const dim = Math.min(options.dim, inputDim, basis.values.length);
  let meanValue = 0;
  for (let r = 0; r < dim; r++) meanValue += Math.max(0, basis.values[r]!);
  meanValue /= dim;
  const projection = new Float32Array(dim * inputDim);
  for (let r = 0; r < dim; r++) {
    const scale = (Math.max(0, basis.values[r]!) + options.shrink * meanValue + 1e-12) ** -options.power;
    for (let i = 0; i < inputDim; i++) projection[r * inputDim + i] = basis.vectors[r * inputDim + i]! * scale;
  }
  return { inputDim, outputDim: dim, mean: basis.mean, projection };
}

export function fitWhitening(samples: Float32Array[], options: WhiteningOptions): Whitening {
  return whiteningFromBasis(pcaBasis(samples, options.dim), options);
}

// ---------------------------------------------------------------------------------------------------------
// File format: "IRISPCAW", u32 LE header length, JSON header, mean (float32 × inputDim), projection
// (float16 × outputDim × inputDim). Float16 halves the file; the rounding error (~1e-3 relative) is far
// below the differences between neighbours that retrieval depends on.

const MAGIC = 'IRISPCAW';

export interface WhiteningFileHeader {
  /** What the input descriptors are (model, tap, pooling) and how the matrix was learned. */
  describes: string;
  inputDim: number;
  outputDim: number;
  power: number;
  shrink: number;
  samples: number;
}

export function encodeWhitening(w: Whitening, header: Omit<WhiteningFileHeader, 'inputDim' | 'outputDim'>): Buffer {
  const json = Buffer.from(JSON.stringify({ ...header, inputDim: w.inputDim, outputDim: w.outputDim }), 'utf8');
  const out = Buffer.alloc(8 + 4 + json.length + w.inputDim * 4 + w.projection.length * 2);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  let offset = 12 + json.length;
  for (const v of w.mean) offset = out.writeFloatLE(v, offset);
  for (const v of w.projection) offset = out.writeUInt16LE(toHalf(v), offset);
  return out;
}

export function decodeWhitening(bytes: Uint8Array): { whitening: Whitening; header: WhiteningFileHeader } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a whitening file');
  const length = buf.readUInt32LE(8);
  const header = JSON.parse(buf.toString('utf8', 12, 12 + length)) as WhiteningFileHeader;
  const { inputDim, outputDim } = header;
  let offset = 12 + length;
  if (buf.length !== offset + inputDim * 4 + inputDim * outputDim * 2) throw new Error('whitening file is truncated');
  const mean = new Float32Array(inputDim);
  for (let i = 0; i < inputDim; i++, offset += 4) mean[i] = buf.readFloatLE(offset);
  const projection = new Float32Array(inputDim * outputDim);
  for (let i = 0; i < projection.length; i++, offset += 2) projection[i] = fromHalf(buf.readUInt16LE(offset));
  return { whitening: { inputDim, outputDim, mean, projection }, header };
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary16, round to nearest; values beyond the range saturate to ±65504 (never met in practice). */
export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7bff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = (mant | 0x800000) >>> (1 - exp);
    return sign | ((m + 0x1000) >>> 13);
  }
  const half = sign | (exp << 10) | (mant >>> 13);
  return half + ((mant & 0x1000) && (half & 0x7fff) < 0x7bff ? 1 : 0);
}

export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
