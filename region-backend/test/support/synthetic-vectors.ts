/**
 * Deterministic synthetic embeddings shaped like image-search catalogues, for tests and the benchmark.
 * Uniform noise would be the wrong test: real embeddings are clustered, low in intrinsic dimension, and full
 * of near-duplicates (several photos of one product). Here:
 *
 *   item i belongs to product p(i); product p to cluster k(p) (Zipf-like cluster sizes);
 *   x_i = normalise(c_k + σ_lat · B(λ ⊙ z_p) + σ_iso · ε_p + σ_dup · η_i)
 *
 * with c_k a random unit centre, B a shared random D×L basis with decaying weights λ_j = (j+1)^−¼ (structure
 * inside a cluster lives in L = 64 dimensions), ε_p isotropic product noise and η_i the photo-to-photo
 * difference. A query is an item plus fresh photo noise: near a data point, never equal to it.
 * The constants give a local intrinsic dimensionality (MLE over 100 neighbours) of about 16 at 100k items,
 * in the range reported for real image descriptors (SIFT, MNIST-like sets), cos to the 10th neighbour ~0.56.
 * Any item can be generated alone from (seed, i), so huge sets are streamed in chunks.
 */
import { seededRandom } from '../../src/util/seeded-random.js';

export interface SyntheticOptions {
  count: number;
  dimension: number;
  seed?: number;
  /** Latent dimensions inside a cluster. */
  latent?: number;
}

export const SYNTHETIC_VERSION = 1;

const SIGMA_LATENT = 0.25;
const SIGMA_ISO = 0.7;
const SIGMA_DUP = 0.15;
const LATENT_DECAY = 0.25;
const PRODUCTS_PER_ITEM = 0.6;
const STORES = ['天猫', '淘宝', '京东'];

export class SyntheticVectors {
  readonly count: number;
  readonly dimension: number;
  private readonly seed: number;
  private readonly latent: number;
  private readonly clusters: number;
  private readonly products: number;
  private readonly centres: Float32Array;
  private readonly basis: Float32Array;
  private readonly clusterCdf: Float64Array;

  constructor(options: SyntheticOptions) {
    this.count = options.count;
    this.dimension = options.dimension;
    this.seed = options.seed ?? 1;
    this.latent = options.latent ?? 64;
    this.clusters = Math.max(16, Math.round(options.count / 500));
    this.products = Math.max(1, Math.round(options.count * PRODUCTS_PER_ITEM));
    const d = this.dimension;

    const rand = seededRandom(hash(this.seed, 0x5eed));
    this.centres = new Float32Array(this.clusters * d);
    for (let k = 0; k < this.clusters; k++) {
      const c = this.centres.subarray(k * d, (k + 1) * d);
      fillGaussian(c, rand, 1);
      normalise(c);
    }
    this.basis = new Float32Array(d * this.latent);
    fillGaussian(this.basis, rand, 1 / Math.sqrt(d));
    const weights = Array.from({ length: this.clusters }, (_, k) => 1 / Math.pow(k + 1, 0.8));
    const total = weights.reduce((a, b) => a + b, 0);
    this.clusterCdf = new Float64Array(this.clusters);
    let acc = 0;
    weights.forEach((w, k) => (this.clusterCdf[k] = acc += w / total));
  }

  /** The product (group of near-duplicate photos) of an item. */
  productOf(i: number): number {
    return hash(this.seed, i, 1) % this.products;
  }

  clusterOfProduct(p: number): number {
    const u = unit(hash(this.seed, p, 2));
    let lo = 0;
    let hi = this.clusters - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.clusterCdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Item i's unit vector. */
  vector(i: number, out = new Float32Array(this.dimension)): Float32Array {
    this.productVector(this.productOf(i), out);
    addNoise(out, seededRandom(hash(this.seed, i, 3)), SIGMA_DUP / Math.sqrt(this.dimension));
    return normalise(out);
  }

  /** A query near item i: the item's product photographed once more (fresh noise), normalised. */
  query(i: number, variant = 0): Float32Array {
    const out = this.productVector(this.productOf(i), new Float32Array(this.dimension));
    addNoise(out, seededRandom(hash(this.seed ^ 0x9e3779b9, i, 4 + variant)), SIGMA_DUP / Math.sqrt(this.dimension));
    return normalise(out);
  }

  /**
   * Tags of item i: `sel1` on ~1% and `sel20` on ~20% of items, independent of content (the hard case for a
   * filtered graph walk), a cluster-correlated category `cat<n>`, and a non-ASCII store tag per product.
   */
  tags(i: number): string[] {
    const tags: string[] = [];
    if (unit(hash(this.seed, i, 5)) < 0.01) tags.push('sel1');
    if (unit(hash(this.seed, i, 6)) < 0.2) tags.push('sel20');
    const p = this.productOf(i);
    tags.push(`cat${this.clusterOfProduct(p) % 20}`, STORES[p % STORES.length]!);
    return tags;
  }

  private productVector(p: number, out: Float32Array): Float32Array {
    const d = this.dimension;
    const L = this.latent;
    const k = this.clusterOfProduct(p);
    out.set(this.centres.subarray(k * d, (k + 1) * d));
    const rand = seededRandom(hash(this.seed, p, 7));
    const z = new Float64Array(L);
    for (let j = 0; j < L; j++) z[j] = (gaussian(rand) * SIGMA_LATENT) / Math.pow(j + 1, LATENT_DECAY);
    for (let r = 0; r < d; r++) {
      let s = 0;
      const row = r * L;
      for (let j = 0; j < L; j++) s += this.basis[row + j]! * z[j]!;
      out[r] = out[r]! + s;
    }
    addNoise(out, rand, SIGMA_ISO / Math.sqrt(d));
    return out;
  }
}

/** 32-bit mix of integers (murmur3 finaliser over a running combination). */
export function hash(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193);
    h ^= Math.floor(part / 4294967296);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

function unit(h: number): number {
  return h / 4294967296;
}

function gaussian(rand: () => number): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

function fillGaussian(out: Float32Array, rand: () => number, sigma: number): void {
  for (let i = 0; i < out.length; i++) out[i] = gaussian(rand) * sigma;
}

function addNoise(out: Float32Array, rand: () => number, sigma: number): void {
  for (let i = 0; i < out.length; i++) out[i] = out[i]! + gaussian(rand) * sigma;
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  return v;
}
