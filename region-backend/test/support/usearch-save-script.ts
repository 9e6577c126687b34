/**
 * A process that changes and saves a usearch store round after round until it is killed
 * (usearch-vector-store.test.ts): round r applies `roundChanges(r)` with seq r, saves, and prints `saved r`.
 * Argument: the store's directory.
 */
import { UsearchVectorStore } from '../../src/vectors/usearch-vector-store.js';
import { roundChanges, SAVE_SCRIPT_DIMENSION } from './usearch-rounds.js';

const [dir] = process.argv.slice(2);
const store = new UsearchVectorStore({ dimension: SAVE_SCRIPT_DIMENSION, embeddingVersion: 'crash', dir: dir! });
for (let round = 1; ; round++) {
  const { upserts, removals } = roundChanges(round);
  store.remove(removals, round);
  store.upsert(upserts, round);
  await store.save();
  process.stdout.write(`saved ${round}\n`);
}
