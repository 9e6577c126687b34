/**
 * Changing the image embedder of a region (IRIS_MODEL_OVERRIDES stage `image-embedder`) rebuilds each search
 * service's index in the background: the old index keeps answering (with the old model) while every image is
 * embedded again, `indexed_ratio` shows the progress, a process killed with SIGKILL half-way is replaced and
 * the new one goes on from what was committed, and the service then switches to the new index at once.
 * Real backend processes, real PostgreSQL, a small ONNX encoder built by the test (test/support/tiny-encoder.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_EMBEDDER, embedderIdentity } from '../../src/vision/embedding/embedder-identity.js';
import { writeTinyEncoder } from '../support/tiny-encoder.js';
import { multipart } from '../support/test-app.js';
import { childSearchFixture } from './child-search-fixture.js';
import { waitFor } from './search-fixtures.js';

const N = 12;

describe('changing the image embedder', () => {
  const fixture = childSearchFixture();
  const { urlOf, child, search, service: view, createIndexedSet } = fixture;
  let modelDir: string;

  beforeAll(() => {
    modelDir = mkdtempSync(path.join(os.tmpdir(), 'iris-embedder-rebuild-'));
  });
  afterAll(() => {
    if (modelDir) rmSync(modelDir, { recursive: true, force: true });
  });

  const state = async (id: string) =>
    (await fixture.db.query<{ pipeline: string; next_pipeline: string | null; n_rebuilt: number }>('SELECT pipeline, next_pipeline, n_rebuilt FROM search_services WHERE id = $1', [id])).rows[0]!;

  it('keeps serving the old index during the rebuild, survives SIGKILL, then switches', async () => {
    const first = await child();
    const { setId, serviceId } = await createIndexedSet(first, N);
    await waitFor(() => view(first, serviceId), (s) => s.n_indexed === N, 180_000);
    const builtIn = await search(first, serviceId, 4);
    expect(builtIn.ver).toBe(BUILTIN_EMBEDDER.id);
    expect(builtIn.results[0]!.url).toBe(urlOf(4));
    await first.kill('SIGTERM');

    // The operator configures an ONNX encoder (slowed down so the rebuild can be watched).
    const manifest = writeTinyEncoder(modelDir, 'grid-encoder', 'vector', { dim: 48 }, 0, 20);
    const overrides = path.join(modelDir, 'overrides.json');
    writeFileSync(overrides, JSON.stringify({ 'image-embedder': manifest }));
    const onnxId = (await embedderIdentity(manifest)).id;

    const second = await child({ IRIS_MODEL_OVERRIDES: overrides });
    const during = await waitFor(() => state(serviceId), (s) => s.next_pipeline !== null && s.n_rebuilt >= 2, 120_000);
    expect(during.next_pipeline!.startsWith(`${onnxId}/`)).toBe(true);
    expect(during.pipeline.startsWith(`${BUILTIN_EMBEDDER.id}/`)).toBe(true);
    // The old index answers, embedding the query with its own model; the ratio shows the rebuild's progress.
    const old = await search(second, serviceId, 7);
    expect(old.ver).toBe(BUILTIN_EMBEDDER.id);
    expect(old.results[0]!.url).toBe(urlOf(7));
    const progress = await view(second, serviceId);
    expect(progress.n_indexed).toBe(N);
    expect(progress.indexed_ratio).toBeGreaterThan(0);
    expect(progress.indexed_ratio).toBeLessThan(1);
    // Records added during the rebuild reach the serving index and are embedded for the new one too.
    const more = multipart({ urls_to_add: { filename: 'b.csv', content: [N, N + 1].map((n) => `${urlOf(n)},m${n},t`).join('\n') } });
    expect((await second.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: more.payload, headers: more.headers })).status).toBe(200);
    await waitFor(() => view(second, serviceId), (s) => s.n_indexed === N + 2, 120_000);
    await second.kill('SIGKILL');
    const killed = await state(serviceId);
    expect(killed.next_pipeline).toBe(during.next_pipeline);
    expect(killed.n_rebuilt).toBeLessThan(N + 2);

    const third = await child({ IRIS_MODEL_OVERRIDES: overrides });
    await waitFor(() => state(serviceId), (s) => s.next_pipeline === null && s.pipeline.startsWith(`${onnxId}/`), 180_000);
    const after = await view(third, serviceId);
    expect(after).toMatchObject({ n_indexed: N + 2, indexed_ratio: 1 });
    // Now the new index answers (once this process has built it), with the new model.
    const switched = await waitFor(() => search(third, serviceId, 9), (r) => r.ver === onnxId, 60_000);
    expect(switched.results[0]!.url).toBe(urlOf(9));
    expect(switched.results[0]!.score).toBeGreaterThan(0.9);
    expect((await search(third, serviceId, N + 1)).results[0]!.url).toBe(urlOf(N + 1));

    // Both indexes complete, one embedding per image and embedder (what the killed process committed was kept).
    const counts = await fixture.db.query<{ pipeline: string; n: number }>('SELECT pipeline, count(*)::int AS n FROM image_embeddings GROUP BY pipeline ORDER BY pipeline');
    expect(counts.rows.map((r) => [r.pipeline.split('/')[0], r.n]).sort()).toEqual([[BUILTIN_EMBEDDER.id, N + 2], [onnxId, N + 2]].sort());
    const recorded = await fixture.db.query('SELECT id, dim FROM search_embedders');
    expect(recorded.rows).toEqual([{ id: onnxId, dim: 48 }]);
    await third.kill('SIGTERM');
  }, 600_000);
});
