/**
 * Any sequence of upserts (new ids, repeated ids, duplicates within a batch, freed slots taken again) and
 * removals leaves the usearch store holding exactly what the exact store holds, each id with its last vector.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactVectorStore } from './exact-vector-store.js';
import { UsearchVectorStore } from './usearch-vector-store.js';
import type { VectorItem } from './vector-store.js';

const D = 8;
const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: D, maxLength: D }).filter((v) => v.some((x) => Math.abs(x) > 1e-3));
const change = fc.oneof(
  fc.record({ upsert: fc.array(fc.record({ id: fc.integer({ min: 0, max: 40 }), vector, tag: fc.constantFrom('a', 'b') }), { maxLength: 12 }) }),
  fc.record({ remove: fc.array(fc.integer({ min: 0, max: 45 }), { maxLength: 8 }) }),
);

describe('usearch store under arbitrary changes', () => {
  it('holds what the exact store holds, and finds each item by its last vector', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 25 }), (changes) => {
        const store = new UsearchVectorStore({ dimension: D, embeddingVersion: 'p' });
        const exact = new ExactVectorStore({ dimension: D, embeddingVersion: 'p' });
        const last = new Map<number, Float32Array>();
        try {
          for (const c of changes) {
            if ('upsert' in c) {
              const items: VectorItem[] = c.upsert.map((u) => ({ id: u.id, vector: Float32Array.from(u.vector), tags: [u.tag] }));
              store.upsert(items);
              exact.upsert(items);
              for (const item of items) last.set(item.id, item.vector);
            } else {
              store.remove(c.remove);
              exact.remove(c.remove);
              for (const id of c.remove) last.delete(id);
            }
          }
          expect(store.size).toBe(exact.size);
          for (let id = 0; id <= 45; id++) expect(store.has(id)).toBe(exact.has(id));
          for (const [id, v] of last) {
            // Ties (the same direction stored under two ids) may come in either order: compare scores.
            const [hit] = store.search(v, 1);
            expect(hit!.score).toBeCloseTo(exact.search(v, 1)[0]!.score, 5);
            expect(store.search(v, last.size).some((h) => h.id === id)).toBe(true);
          }
        } finally {
          void store.close();
          void exact.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});
