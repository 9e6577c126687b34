import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../util/seeded-random.js';
import { DescriptorIndex } from './descriptor-index.js';
import type { LibraryPayload } from './logo-matcher.js';

const random = seededRandom('descriptor-index');
const OPTIONS = { voteDistance: 64, maxBucket: 2000, ratio: 0.8 };
const randomBytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));

function library(counts: number[]): LibraryPayload {
  const total = counts.reduce((a, b) => a + b, 0);
  let offset = 0;
  const references = counts.map((count, i) => {
    const r = { id: i, brandId: i, width: 1, height: 1, outline: [0, 0, 1, 1] as [number, number, number, number], offset, count, template: { offset: 0, width: 0, height: 0 } };
    offset += count;
    return r;
  });
  return { key: 'test', references, points: new Float32Array(total * 2), descriptors: randomBytes(total * 32), templates: new Uint8Array(0) };
}

/** A copy of a descriptor with `bits` random bits flipped. */
function noisy(source: Uint8Array, bits: number): Uint8Array {
  const out = source.slice();
  const flipped = new Set<number>();
  while (flipped.size < bits) flipped.add(Math.floor(random() * 256));
  for (const b of flipped) out[b >> 3]! ^= 1 << (b & 7);
  return out;
}

describe('descriptor index (multi-index hashing)', () => {
  it('votes for the reference whose descriptors the query shows, and for no other', () => {
    const lib = library([500, 800, 300]);
    const index = DescriptorIndex.build(lib);
    const shown = lib.references[1]!;
    const query = new Uint8Array((60 + 400) * 32);
    // 60 noisy copies (8–40 flipped bits) of the second reference's descriptors, then 400 unrelated ones.
    for (let i = 0; i < 60; i++) {
      const d = shown.offset + Math.floor(random() * shown.count);
      query.set(noisy(lib.descriptors.subarray(d * 32, d * 32 + 32), 8 + Math.floor(random() * 33)), i * 32);
    }
    query.set(randomBytes(400 * 32), 60 * 32);
    const votes = index.votes(query, OPTIONS);
    expect(votes[1]).toBeGreaterThanOrEqual(35);
    expect(votes[1]).toBeLessThanOrEqual(60);
    expect(votes[0]).toBe(0);
    expect(votes[2]).toBe(0);
  });

  it('votes only for distinctive matches, and skips crowded buckets', () => {
    const lib = library([50, 50]);
    // Descriptor 1 of the first reference is also descriptor 0 of the second: a query showing it is ambiguous.
    lib.descriptors.copyWithin(50 * 32, 32, 64);
    const index = DescriptorIndex.build(lib);
    expect(Array.from(index.votes(lib.descriptors.slice(0, 32), OPTIONS))).toEqual([1, 0]);
    expect(Array.from(index.votes(lib.descriptors.slice(32, 64), OPTIONS))).toEqual([0, 0]);
    expect(Array.from(index.votes(lib.descriptors.slice(0, 32), { ...OPTIONS, maxBucket: 0 }))).toEqual([0, 0]);
  });
});
