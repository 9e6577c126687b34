/**
 * Palette extraction: weighted k-means++ in CIELAB with a fixed seed (same image → same palette), then
 * clusters closer than a CIEDE2000 threshold are merged so one perceived colour is not split in shades.
 */
import { ciede2000, type Lab } from './color-space.js';
import { seededRandom } from '../../util/seeded-random.js';

export interface ColorCluster {
  lab: [number, number, number];
  /** Share of the sampled (weighted) pixels, summing to 1 over all clusters. */
  weight: number;
}

export interface ClusterOptions {
  k: number;
  /** Clusters closer than this CIEDE2000 distance are merged. */
  mergeDeltaE: number;
  maxIterations?: number;
  seed?: number;
}


/**
 * `samples` holds L,a,b triples; `weights` one weight per sample. Returns clusters sorted by weight
 * (descending), weights normalised to sum 1; an empty input gives an empty palette.
 */
export function clusterColors(samples: Float32Array, weights: Float32Array, options: ClusterOptions): ColorCluster[] {
  const n = weights.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i]!;
  if (n === 0 || total <= 0) return [];
  const k = Math.max(1, Math.min(options.k, n));
  const random = seededRandom(options.seed ?? 0x1215);
  const centres = initPlusPlus(samples, weights, k, random);
  const assign = new Int32Array(n);
  const maxIterations = options.maxIterations ?? 30;
  const sums = new Float64Array(k * 4);
  for (let iter = 0; iter < maxIterations; iter++) {
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const best = nearest(samples, i, centres, k);
      if (best !== assign[i]) {
        changed++;
        assign[i] = best;
      }
    }
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      const w = weights[i]!;
      const c = assign[i]! * 4;
      sums[c] = sums[c]! + samples[i * 3]! * w;
      sums[c + 1] = sums[c + 1]! + samples[i * 3 + 1]! * w;
      sums[c + 2] = sums[c + 2]! + samples[i * 3 + 2]! * w;
      sums[c + 3] = sums[c + 3]! + w;
    }
    for (let c = 0; c < k; c++) {
      const w = sums[c * 4 + 3]!;
      if (w > 0) for (let d = 0; d < 3; d++) centres[c * 3 + d] = sums[c * 4 + d]! / w;
    }
    if (iter > 0 && changed === 0) break;
  }
  let clusters: ColorCluster[] = [];
  for (let c = 0; c < k; c++) {
    const w = sums[c * 4 + 3]!;
    if (w > 0) clusters.push({ lab: [centres[c * 3]!, centres[c * 3 + 1]!, centres[c * 3 + 2]!], weight: w / total });
  }
  clusters = mergeClose(clusters, options.mergeDeltaE);
  return clusters.sort((p, q) => q.weight - p.weight || p.lab[0] - q.lab[0]);
}

function nearest(samples: Float32Array, i: number, centres: Float64Array, k: number): number {
  const L = samples[i * 3]!;
  const a = samples[i * 3 + 1]!;
  const b = samples[i * 3 + 2]!;
  let best = 0;
  let bestD = Infinity;
  for (let c = 0; c < k; c++) {
    const dL = L - centres[c * 3]!;
    const da = a - centres[c * 3 + 1]!;
    const db = b - centres[c * 3 + 2]!;
    const d = dL * dL + da * da + db * db;
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** k-means++ seeding: each next centre drawn with probability ∝ weight × squared distance to the nearest centre. */
function initPlusPlus(samples: Float32Array, weights: Float32Array, k: number, random: () => number): Float64Array {
  const n = weights.length;
  const centres = new Float64Array(k * 3);
  const dist = new Float64Array(n).fill(Infinity);
  let first = pick(weights, null, random);
  for (let c = 0; c < k; c++) {
    const s = first;
    centres[c * 3] = samples[s * 3]!;
    centres[c * 3 + 1] = samples[s * 3 + 1]!;
    centres[c * 3 + 2] = samples[s * 3 + 2]!;
    for (let i = 0; i < n; i++) {
      const dL = samples[i * 3]! - centres[c * 3]!;
      const da = samples[i * 3 + 1]! - centres[c * 3 + 1]!;
      const db = samples[i * 3 + 2]! - centres[c * 3 + 2]!;
      const d = dL * dL + da * da + db * db;
      if (d < dist[i]!) dist[i] = d;
    }
    if (c + 1 < k) first = pick(weights, dist, random);
  }
  return centres;
}

function pick(weights: Float32Array, dist: Float64Array | null, random: () => number): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i]! * (dist ? dist[i]! : 1);
  if (total <= 0) return 0;
  let r = random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i]! * (dist ? dist[i]! : 1);
    if (r <= 0) return i;
  }
  return weights.length - 1;
}

/** Repeatedly merges the closest pair of clusters while it is closer than `threshold` (CIEDE2000). */
export function mergeClose(clusters: ColorCluster[], threshold: number): ColorCluster[] {
  const list = clusters.map((c) => ({ lab: [...c.lab] as [number, number, number], weight: c.weight }));
  for (;;) {
    let bi = -1;
    let bj = -1;
    let best = threshold;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const d = ciede2000(list[i]!.lab as Lab, list[j]!.lab as Lab);
        if (d < best) {
          best = d;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) return list;
    const p = list[bi]!;
    const q = list[bj]!;
    const w = p.weight + q.weight;
    p.lab = [0, 1, 2].map((d) => (p.lab[d]! * p.weight + q.lab[d]! * q.weight) / w) as [number, number, number];
    p.weight = w;
    list.splice(bj, 1);
  }
}
