import { describe, expect, it } from 'vitest';
import { Float32Slab, Int8Slab } from './vector-slab.js';
import { TopK } from './top-k.js';
import { seededRandom } from '../util/seeded-random.js';

function unitVectors(count: number, dim: number, seed: number): Float32Array[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dim }, () => rand() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

describe('TopK', () => {
  it('keeps the k best scores, best first', () => {
    const top = new TopK(3);
    [0.5, 0.1, 0.9, 0.7, 0.3, 0.8].forEach((score, item) => top.push(score, item));
    expect(top.sorted()).toEqual([
      { item: 2, score: 0.9 },
      { item: 5, score: 0.8 },
      { item: 3, score: 0.7 },
    ]);
    expect(top.threshold).toBe(0.7);
    expect(new TopK(0).sorted()).toEqual([]);
  });
});

describe('vector slabs', () => {
  const dim = 256;
  const vectors = unitVectors(300, dim, 5);
  const query = unitVectors(1, dim, 6)[0]!;

  it('store vectors across blocks and score them exactly (float32) or within int8 rounding', () => {
    const exact = new Float32Slab(dim);
    const int8 = new Int8Slab(dim);
    // Slots far apart put vectors in different blocks.
    const slots = vectors.map((_, i) => i * 700);
    exact.ensureCapacity(slots.at(-1)! + 1);
    int8.ensureCapacity(slots.at(-1)! + 1);
    vectors.forEach((v, i) => {
      exact.set(slots[i]!, v);
      int8.set(slots[i]!, v);
    });
    let worst = 0;
    vectors.forEach((v, i) => {
      const truth = v.reduce((s, x, d) => s + x * query[d]!, 0);
      expect(exact.dot(query, slots[i]!)).toBeCloseTo(truth, 6);
      worst = Math.max(worst, Math.abs(int8.dot(query, slots[i]!) - truth));
    });
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(2e-3);
  });

  it('scan the listed slots into a TopK like dot does one by one', () => {
    for (const slab of [new Float32Slab(dim), new Int8Slab(dim)]) {
      slab.ensureCapacity(vectors.length);
      vectors.forEach((v, i) => slab.set(i, v));
      const list = Int32Array.from({ length: 150 }, (_, i) => i * 2);
      const top = new TopK(5);
      slab.scan(query, list, list.length, top);
      const expected = [...list].map((slot) => ({ item: slot, score: slab.dot(query, slot) })).sort((a, b) => b.score - a.score);
      expect(top.sorted().map((h) => h.item)).toEqual(expected.slice(0, 5).map((h) => h.item));
    }
  });

  it('expose their storage as byte views that a load fills in place', () => {
    for (const make of [() => new Float32Slab(dim), () => new Int8Slab(dim)]) {
      const slab = make();
      slab.ensureCapacity(70_000);
      slab.set(0, vectors[0]!);
      slab.set(69_999, vectors[1]!);
      const saved = slab.chunks(70_000).map((c) => c.slice());
      expect(saved.reduce((n, c) => n + c.length, 0)).toBe(70_000 * slab.bytesPerSlot);
      const copy = make();
      copy.ensureCapacity(70_000);
      copy.chunks(70_000).forEach((view, i) => view.set(saved[i]!));
      expect(copy.get(69_999)).toEqual(slab.get(69_999));
      expect(copy.get(0)).toEqual(slab.get(0));
      expect(copy.dot(query, 69_999)).toBe(slab.dot(query, 69_999));
    }
  });
});
