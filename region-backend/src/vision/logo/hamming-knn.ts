/**
 * Brute-force nearest neighbours of 256-bit binary descriptors under the Hamming distance, with Lowe's ratio
 * test applied per reference. Plain JavaScript over 32-bit words (as fast as OpenCV's wasm BFMatcher on this
 * workload); the SIMD module (hamming-simd.ts) is used instead wherever WebAssembly SIMD exists.
 */
import { DESCRIPTOR_BYTES } from './logo-params.js';

const WORDS = DESCRIPTOR_BYTES / 4;

/** Query keypoint index, reference keypoint index (within the reference). */
export type Match = [number, number];

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** 32-bit words over descriptor bytes (copied only when the bytes are not 4-byte aligned). */
export function descriptorWords(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  return new Uint32Array(bytes.slice().buffer);
}

export function hammingDistance(a: Uint32Array, ai: number, b: Uint32Array, bi: number): number {
  let d = 0;
  for (let k = 0; k < WORDS; k++) d += popcount(a[ai * WORDS + k]! ^ b[bi * WORDS + k]!);
  return d;
}

/**
 * For every query descriptor, its nearest descriptor among `count` reference descriptors starting at
 * `offset`, kept when closer than `maxDistance` and than `ratio` × the second nearest.
 */
export function ratioMatches(query: Uint32Array, queryCount: number, library: Uint32Array, offset: number, count: number, ratio: number, maxDistance: number): Match[] {
  const matches: Match[] = [];
  if (count < 2) return matches;
  for (let i = 0; i < queryCount; i++) {
    const qo = i * WORDS;
    const q0 = query[qo]!;
    const q1 = query[qo + 1]!;
    const q2 = query[qo + 2]!;
    const q3 = query[qo + 3]!;
    const q4 = query[qo + 4]!;
    const q5 = query[qo + 5]!;
    const q6 = query[qo + 6]!;
    const q7 = query[qo + 7]!;
    let best = 1e9;
    let second = 1e9;
    let bestIndex = -1;
    for (let j = 0, ro = offset * WORDS; j < count; j++, ro += WORDS) {
      let d = popcount(q0 ^ library[ro]!) + popcount(q1 ^ library[ro + 1]!) + popcount(q2 ^ library[ro + 2]!) + popcount(q3 ^ library[ro + 3]!);
      if (d >= second) continue;
      d += popcount(q4 ^ library[ro + 4]!) + popcount(q5 ^ library[ro + 5]!) + popcount(q6 ^ library[ro + 6]!) + popcount(q7 ^ library[ro + 7]!);
      if (d < best) {
        second = best;
        best = d;
        bestIndex = j;
      } else if (d < second) {
        second = d;
      }
    }
    if (bestIndex >= 0 && best <= maxDistance && best < ratio * second) matches.push([i, bestIndex]);
  }
  return matches;
}

/** Ratio-test matches from [best index, best distance, second distance] triples per query descriptor. */
export function matchesFromNearestTwo(triples: Int32Array, ratio: number, maxDistance: number): Match[] {
  const matches: Match[] = [];
  for (let i = 0, n = triples.length / 3; i < n; i++) {
    const index = triples[3 * i]!;
    const best = triples[3 * i + 1]!;
    if (index >= 0 && best <= maxDistance && best < ratio * triples[3 * i + 2]!) matches.push([i, index]);
  }
  return matches;
}
