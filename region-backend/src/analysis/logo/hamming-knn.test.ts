import { describe, expect, it } from 'vitest';
import { descriptorWords, hammingDistance, ratioMatches } from './hamming-knn.js';

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
