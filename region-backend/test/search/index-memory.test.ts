/**
 * Bounded index memory: 200 search services on one backend process with a 1 MB index budget. Indexing and
 * queries keep the process under the budget however many services are used, and every service answers
 * correctly, evicted indexes read back from their files (not rebuilt, not re-embedded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId } from '@iris/shared';
import { bytesToVector } from '../../src/domains/search-services/embedding-pipeline.js';
import { serviceState } from '../../src/domains/search-services/search-service.repo.js';
import type { ImageServer } from '../support/image-server.js';
import { addImagesCsv, createImageSet, searchEnvironment, searchImages, searchUpload, serveImages, startSearchBackend, waitFor, type SearchBackend } from './search-fixtures.js';

const SERVICES = 200;
const IMAGES = 8;
const BUDGET = 1024 * 1024;

describe('search index memory budget', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let server: ImageServer;
  let backend: SearchBackend;
  let images: Buffer[];

  beforeAll(async () => {
    env = await searchEnvironment();
    images = (await searchImages()).slice(0, IMAGES);
    server = await serveImages(images);
    backend = await startSearchBackend({ ...env, env: { IRIS_INDEX_MEMORY_MB: '1', IRIS_SEARCH_POLL_MS: '300', IRIS_SEARCH_INDEX_JOBS: '4', IRIS_METRICS_PORT: '0' } });
  }, 120_000);
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await env?.dispose();
  });

  it('serves 200 services under the budget, reloading evicted indexes from their files', async () => {
    const setId = await createImageSet(backend);
    await addImagesCsv(backend, setId, images.map((_, n) => `${server.url(`/img/${n}.jpg`)},m${n},t`));
    const quotas = { ...DEFAULT_QUOTAS, searchServicesPerSet: SERVICES };
    const ids: string[] = [];
    for (let i = 0; i < SERVICES; i++) {
      const id = newResourceId();
      const res = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: id, quotas, payload: { name: `s${i}`, scenario: 'general' } });
      expect(res.statusCode, res.body).toBe(200);
      ids.push(id);
    }
    const pool = backend.app.db.pool;
    await waitFor(
      async () => Number((await pool.query('SELECT count(*) AS n FROM search_index_items WHERE deleted_at IS NULL')).rows[0].n),
      (n) => n === SERVICES * IMAGES,
      300_000,
    );
    // Indexing keeps the writer's files current, under the budget: far from every index is held.
    const indexes = backend.app.searchIndexes;
    await waitFor(async () => indexes.memoryBytes, (bytes) => bytes <= BUDGET, 10_000);
    expect(indexes.loaded.length).toBeLessThan(SERVICES / 4);

    const state0 = (await serviceState(pool, ids[0]!))!;
    const vectors = (
      await pool.query<{ id: string; vector: Buffer }>(
        `SELECT r.id, e.vector FROM data_set_records r JOIN image_embeddings e ON e.blob_key = r.blob_key AND e.pipeline = $2
         WHERE r.set_id = $1 AND r.deleted_at IS NULL ORDER BY r.id`,
        [setId, state0.pipeline],
      )
    ).rows.map((r) => ({ id: Number(r.id), vector: bytesToVector(r.vector) }));
    expect(vectors).toHaveLength(IMAGES);

    let peak = 0;
    for (const [i, id] of ids.entries()) {
      const state = (await serviceState(pool, id))!;
      const probe = vectors[i % IMAGES]!;
      const hits = await indexes.use(state, (store) => store.search(probe.vector, 1));
      expect(hits[0]?.id).toBe(probe.id);
      peak = Math.max(peak, indexes.memoryBytes);
      expect(indexes.memoryBytes).toBeLessThanOrEqual(BUDGET);
    }
    expect(indexes.evictions).toBeGreaterThan(SERVICES / 2);
    expect(indexes.loaded.length).toBeLessThan(SERVICES);

    // Evicted services answer real queries again, their indexes read back from the saved files.
    const evicted = ids.filter((id) => !indexes.loaded.includes(id)).slice(0, 4);
    expect(evicted).toHaveLength(4);
    for (const [k, id] of evicted.entries()) {
      const res = await searchUpload(backend, id, images[k]!);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().results[0].url).toBe(server.url(`/img/${k}.jpg`));
      expect(indexes.describe(id)).toMatchObject({ origin: 'file', size: IMAGES });
      expect(indexes.memoryBytes).toBeLessThanOrEqual(BUDGET);
    }
    // Queries arriving together for an evicted service share one load of its files.
    const cold = ids.find((id) => !indexes.loaded.includes(id))!;
    const coldState = (await serviceState(pool, cold))!;
    const loadsBefore = indexes.loads;
    const together = await Promise.all(Array.from({ length: 4 }, () => indexes.use(coldState, (store) => store.search(vectors[0]!.vector, 1))));
    expect(together.map((hits) => hits[0]?.id)).toEqual(Array(4).fill(vectors[0]!.id));
    expect(indexes.loads - loadsBefore).toBe(1);

    // `/metrics` shows the same figures: loaded indexes and their sizes, loads and evictions.
    const metrics = await (await fetch(`http://127.0.0.1:${backend.app.metricsAddress()!.port}/metrics`)).text();
    const figure = (name: string) => Number(/^(\S+) (\S+)$/m.exec(metrics.split('\n').filter((l) => l.startsWith(name)).join('\n'))?.[2]);
    expect(figure('iris_search_index_evictions_total')).toBe(indexes.evictions);
    expect(figure('iris_search_index_loads_total')).toBe(indexes.loads);
    expect(indexes.loads).toBeGreaterThanOrEqual(SERVICES);
    expect(figure('iris_search_indexes_loaded')).toBe(indexes.loaded.length);
    const vectorsLine = metrics.split('\n').find((l) => l.startsWith('iris_search_index_vectors{') && l.includes(`service="${evicted[0]}"`));
    expect(vectorsLine).toMatch(new RegExp(`region="cn-east".* ${IMAGES}$`));
    console.log(`index memory: peak ${(peak / 1024).toFixed(0)} KiB of ${BUDGET / 1024} KiB, ${indexes.evictions} evictions, ${indexes.loaded.length} loaded`);
  }, 400_000);

  it('never passes the budget for queries in flight: one whose index does not fit beside them is refused with 503, then served', async () => {
    const indexes = backend.app.searchIndexes;
    const pool = backend.app.db.pool;
    const ids = (await pool.query<{ id: string }>('SELECT id FROM search_services ORDER BY id')).rows.map((r) => r.id);
    // Queries that hold their index until released, on more services than the budget can hold at once.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: Promise<unknown>[] = [];
    let refused = 0;
    for (const id of ids.slice(0, 120)) {
      const state = (await serviceState(pool, id))!;
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const query = indexes.use(state, async () => {
        entered();
        await gate;
      });
      const outcome = await Promise.race([inside.then(() => 'held' as const), query.then(() => 'held' as const, (err: unknown) => err)]);
      if (outcome !== 'held') {
        expect(outcome).toMatchObject({ status: 503, code: 9006 });
        refused++;
      } else {
        held.push(query);
      }
      expect(indexes.memoryBytes).toBeLessThanOrEqual(BUDGET);
    }
    expect(refused).toBeGreaterThan(0);
    // Through the API: the search family's 503 shape, and nothing loaded past the budget.
    const refusedId = ids.slice(0, 120).find((id) => !indexes.loaded.includes(id))!;
    const busy = await searchUpload(backend, refusedId, images[0]!);
    expect(busy.statusCode).toBe(503);
    expect(busy.json()).toMatchObject({ error_code: 9006 });
    expect(indexes.memoryBytes).toBeLessThanOrEqual(BUDGET);
    release();
    await Promise.all(held);
    // Retried once the other queries are done, it is served.
    const served = await searchUpload(backend, refusedId, images[0]!);
    expect(served.statusCode, served.body).toBe(200);
    expect(indexes.memoryBytes).toBeLessThanOrEqual(BUDGET);
  }, 300_000);
});