import { afterAll, describe, expect, it } from 'vitest';
import { rerankPictures } from '../../../test/support/real-photos.js';
import { InferencePool } from '../../inference/inference-pool.js';
import { ExactVectorStore } from '../../vectors/exact-vector-store.js';
import { BUILTIN_EMBEDDER } from '../../vision/embedding/embedder-identity.js';
import { embed } from '../../vision/embedding/embedder.js';
import { EMBEDDING_DIM } from '../../vision/embedding/embedding-info.js';
import { QUERY_TURNS, turnRgb } from '../../vision/embedding/query-turns.js';
import type { Verification } from '../../vision/embedding/geometric-verify.js';
import type { Selected } from './search-rerank.js';
import { turnPass, wantsTurnPass } from './search-turns.js';

const record = (id: number) => ({ id, url: `u${id}`, meta: '', tags: [], product_id: '', price: '', keywords: '' });

describe('quarter turns of a query', () => {
  const inference = new InferencePool(1, { lowPriorityThreads: 0 });
  afterAll(() => inference.close());

  it('raises the candidate a turned query finds at the bar or more, and leaves the others and verified queries alone', async () => {
    const { source, other } = await rerankPictures();
    const query = await turnRgb(source, 90);
    // The index: the upright picture (1), another picture (2) and a look-alike of the turned query (3).
    const store = new ExactVectorStore({ dimension: EMBEDDING_DIM, embeddingVersion: 'test' });
    const vectors = await Promise.all([source, other, query].map(async (rgb) => (await embed({ rgb })).vector));
    store.upsert(vectors.map((vector, i) => ({ id: i + 1, vector, tags: [] })));
    const searchVectors = (list: Float32Array[], count: number) => Promise.resolve(list.map((v) => store.search(v, count).map((hit) => ({ hit, record: record(hit.id) }))));
    const head: Selected[] = (await searchVectors([(await embed({ rgb: query })).vector], 3))[0]!;
    expect(head[0]!.hit.id).toBe(3);
    expect(wantsTurnPass(head)).toBe(true);
    const before = new Map(head.map((s) => [s.hit.id, s.hit.score]));

    const input = { picture: query, scenario: 'general', embedder: BUILTIN_EMBEDDER, candidates: 3, searchVectors };
    const turned = await turnPass(head, input, { inference, accountId: 1 });
    const score = (id: number) => turned.find((s) => s.hit.id === id)!.hit.score;
    expect(score(1)).toBeGreaterThanOrEqual(QUERY_TURNS.bar);
    expect(score(1)).toBeGreaterThan(before.get(1)!);
    expect(score(2)).toBe(before.get(2));
    expect(turned.map((s) => s.hit.score)).toEqual([...turned.map((s) => s.hit.score)].sort((a, b) => b - a));

    // A verified candidate settles the query: no turns, the ranking as it was.
    const verified = [{ ...head[0]!, match: { inliers: 30 } as unknown as Verification }, ...head.slice(1)];
    expect(wantsTurnPass(verified)).toBe(false);
    expect(await turnPass(verified, input, { inference, accountId: 1 })).toBe(verified);
    // Hostile: nothing to re-rank, or a best score under the "same picture" cut.
    expect(wantsTurnPass([])).toBe(false);
    expect(wantsTurnPass(head.map((s) => ({ ...s, hit: { ...s.hit, score: QUERY_TURNS.minScore - 0.01 } })))).toBe(false);
  });
});
