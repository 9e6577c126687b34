import { describe, expect, it } from 'vitest';
import { descriptorWords, hammingDistance, matchesFromNearestTwo, ratioMatches } from './hamming-knn.js';
import { SimdHamming } from './hamming-simd.js';

function descriptors(rows: number[][]): Uint32Array {
  const bytes = new Uint8Array(rows.length * 32);
  rows.forEach((row, i) => row.forEach((bit) => (bytes[i * 32 + (bit >> 3)]! |= 1 << (bit & 7))));
  return descriptorWords(bytes);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('Hamming k-NN with the ratio test', () => {
  it('counts differing bits', () => {
    const d = descriptors([[], range(0, 256), [0, 7, 200]]);
    expect(hammingDistance(d, 0, d, 1)).toBe(256);
    expect(hammingDistance(d, 0, d, 2)).toBe(3);
    expect(hammingDistance(d, 2, d, 2)).toBe(0);
  });

  it('reads unaligned descriptor bytes', () => {
    const bytes = new Uint8Array(65);
    bytes[1] = 0xff;
    const words = descriptorWords(bytes.subarray(1));
    expect(words.length).toBe(16);
    expect(hammingDistance(words, 0, words, 1)).toBe(8);
  });

  it('keeps a nearest neighbour only when clearly closer than the second, within one reference range', () => {
    // Library: reference A = rows 0..2, reference B = rows 3..4.
    const library = descriptors([range(0, 40), range(100, 140), range(200, 240), range(0, 39), range(0, 43)]);
    const query = descriptors([range(0, 41), range(100, 139), range(60, 70)]);
    // In A: query 0 is 1 bit from row 0 (second best 81), query 1 is 1 bit from row 1, query 2 is far from everything.
    expect(ratioMatches(query, 3, library, 0, 3, 0.8, 64)).toEqual([[0, 0], [1, 1]]);
    // In B: query 0 is 2 bits from both rows: ambiguous, refused by the ratio test.
    expect(ratioMatches(query, 3, library, 3, 2, 0.8, 64)).toEqual([]);
    // The absolute cap applies too.
    expect(ratioMatches(query, 3, library, 0, 3, 0.8, 0)).toEqual([]);
  });
});

describe('WebAssembly SIMD nearest neighbours', () => {
  it('gives exactly the JavaScript results, per reference range', () => {
    const simd = SimdHamming.create();
    expect(simd).not.toBeNull();
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
    const library = new Uint8Array(300 * 32).map(random);
    const query = new Uint8Array(120 * 32).map(random);
    // Plant near copies of some query descriptors in the second reference (rows 100..299).
    for (let i = 0; i < 40; i++) {
      library.set(query.subarray(i * 32, i * 32 + 32), (100 + 3 * i) * 32);
      library[(100 + 3 * i) * 32]! ^= 0b101;
    }
    simd!.useLibrary('test', library);
    const knn = simd!.useQuery(query);
    const words = { q: descriptorWords(query), r: descriptorWords(library) };
    for (const [offset, count] of [[0, 100], [100, 200]] as const) {
      const fromSimd = matchesFromNearestTwo(knn.nearestTwo(offset, count), 0.8, 90);
      expect(fromSimd).toEqual(ratioMatches(words.q, 120, words.r, offset, count, 0.8, 90));
      if (offset === 100) expect(fromSimd.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => [i, 3 * i]));
    }
  });
});
