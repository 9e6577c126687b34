/**
 * A region that built its search indexes with the float backbone (IRIS_BACKBONE_PRECISION=float, as before
 * int8 became the default) and restarts with the int8 one rebuilds each service's index in the background with the new built-in
 * embedder id, answering from the float index until the int8 one is complete, then from the int8 one. No
 * manifest is involved: the built-in embedder's id alone names the precision. Real backend processes, real
 * PostgreSQL, the real backbone in both precisions.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_EMBEDDER, builtinEmbedderId } from '../../src/vision/embedding/embedder-identity.js';
import { childSearchFixture } from './child-search-fixture.js';
import { waitFor } from './search-fixtures.js';

const N = 8;
const FLOAT_ID = builtinEmbedderId('float');
const INT8_ID = builtinEmbedderId('int8');

describe('changing the backbone precision', () => {
  const fixture = childSearchFixture();
  const { urlOf, child, search, service, createIndexedSet } = fixture;
  const state = async (id: string) =>
    (await fixture.db.query<{ pipeline: string; next_pipeline: string | null }>('SELECT pipeline, next_pipeline FROM search_services WHERE id = $1', [id])).rows[0]!;

  it('the int8 embedder has its own id; the default is the int8 one', () => {
    expect(INT8_ID).not.toBe(FLOAT_ID);
    expect(BUILTIN_EMBEDDER.id).toBe(process.env.IRIS_BACKBONE_PRECISION === 'float' ? FLOAT_ID : INT8_ID);
  });

  it('rebuilds a float index with the int8 backbone in the background, then switches', async () => {
    const first = await child({ IRIS_BACKBONE_PRECISION: 'float' });
    const { serviceId } = await createIndexedSet(first, N);
    await waitFor(() => state(serviceId), (s) => s.pipeline.startsWith(`${FLOAT_ID}/`), 60_000);
    // Every picture in the float index before the restart, so whichever index answers below holds picture 5.
    await waitFor(() => service(first, serviceId), (s) => s.n_indexed === N, 180_000);
    await waitFor(() => search(first, serviceId, 3), (r) => r.results.length > 0 && r.results[0]!.url === urlOf(3), 60_000);
    expect((await search(first, serviceId, 3)).ver).toBe(FLOAT_ID);
    await first.kill('SIGTERM');

    // Restarted with the int8 backbone: the service is rebuilt under the int8 id.
    const second = await child({ IRIS_BACKBONE_PRECISION: 'int8' });
    const during = await search(second, serviceId, 5);
    // Whichever index answers, the query ran the backbone that index was built with, and finds the picture.
    expect([FLOAT_ID, INT8_ID]).toContain(during.ver);
    expect(during.results[0]!.url).toBe(urlOf(5));
    await waitFor(() => state(serviceId), (s) => s.next_pipeline === null && s.pipeline.startsWith(`${INT8_ID}/`), 180_000);
    const switched = await waitFor(() => search(second, serviceId, 6), (r) => r.ver === INT8_ID, 60_000);
    expect(switched.results[0]!.url).toBe(urlOf(6));
    expect(switched.results[0]!.score).toBeGreaterThan(0.9);
    const counts = await fixture.db.query<{ pipeline: string; n: number }>('SELECT pipeline, count(*)::int AS n FROM image_embeddings GROUP BY pipeline');
    expect(counts.rows.map((r) => [r.pipeline.split('/')[0], r.n]).sort()).toEqual([[FLOAT_ID, N], [INT8_ID, N]].sort());
    await second.kill('SIGTERM');
  }, 600_000);
});
