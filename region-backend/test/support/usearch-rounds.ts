/** The changes of each round of usearch-save-script.ts, and the items a store holds after a given round. */
import { seededRandom } from '../../src/util/seeded-random.js';
import type { VectorItem } from '../../src/vectors/vector-store.js';

export const SAVE_SCRIPT_DIMENSION = 32;
const PER_ROUND = 3000;
const UPDATED = 200;

function vectorOf(id: number, round: number): Float32Array {
  const rand = seededRandom(id * 7919 + round);
  return Float32Array.from({ length: SAVE_SCRIPT_DIMENSION }, () => rand() - 0.5);
}

/** Round r adds ids (r−1)·3000+1 … r·3000, gives ids 1…200 new vectors, and removes the ids ≡ r (mod 97) of the previous round. */
export function roundChanges(round: number): { upserts: VectorItem[]; removals: number[] } {
  const upserts: VectorItem[] = [];
  for (let id = (round - 1) * PER_ROUND + 1; id <= round * PER_ROUND; id++) upserts.push({ id, vector: vectorOf(id, round), tags: [`r${round}`] });
  if (round > 1) for (let id = 1; id <= UPDATED; id++) upserts.push({ id, vector: vectorOf(id, round), tags: [`r${round}`] });
  const removals: number[] = [];
  for (let id = (round - 2) * PER_ROUND + 1; round > 1 && id <= (round - 1) * PER_ROUND; id++) if (id % 97 === round % 97 && id > UPDATED) removals.push(id);
  return { upserts, removals };
}

/** Every item after rounds 1…r, as the store must hold it. */
export function itemsAfter(round: number): Map<number, VectorItem> {
  const items = new Map<number, VectorItem>();
  for (let r = 1; r <= round; r++) {
    const { upserts, removals } = roundChanges(r);
    for (const id of removals) items.delete(id);
    for (const item of upserts) items.set(item.id, item);
  }
  return items;
}
