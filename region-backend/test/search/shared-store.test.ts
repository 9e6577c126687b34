/**
 * Two backend processes of one region, each with its own cache directory (IRIS_CACHE_DIR) and one shared
 * store (IRIS_SHARED_DIR): both serve the same set and search service correctly; blobs, batch files and
 * uploads go to the shared store, index files to each process's cache, nothing to IRIS_DATA_DIR.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, prepare, waitForState } from '../batch/batch-helpers.js';
import type { ImageServer } from '../support/image-server.js';
import type { TestBackend } from '../support/test-app.js';
import { addImagesCsv, createImageSet, createService, searchEnvironment, searchImages, searchUpload, serveImages, startSearchBackend, waitFor, waitIndexed, type SearchBackend, type SearchResponse } from './search-fixtures.js';

describe('processes with their own caches over one shared store', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let server: ImageServer;
  let images: Buffer[];
  const open: SearchBackend[] = [];
  const dirs = { shared: '', cacheA: '', cacheB: '', data: '' };
  const urlOf = (n: number) => server.url(`/img/${n}.jpg`);

  beforeAll(async () => {
    images = await searchImages();
    server = await serveImages(images);
    env = await searchEnvironment();
    dirs.data = path.join(env.dataDir, 'data');
    dirs.shared = path.join(env.dataDir, 'shared');
    dirs.cacheA = path.join(env.dataDir, 'cache-a');
    dirs.cacheB = path.join(env.dataDir, 'cache-b');
    mkdirSync(dirs.data);
    for (const [name, cache] of [['a', dirs.cacheA], ['b', dirs.cacheB]] as const) {
      open.push(await startSearchBackend({ databaseUrl: env.databaseUrl, dataDir: dirs.data, env: { IRIS_SHARED_DIR: dirs.shared, IRIS_CACHE_DIR: cache, IRIS_SEARCH_POLL_MS: '300', IRIS_SEARCH_SAVE_MS: '1000' } }));
      expect(open.at(-1)!.app.config.instanceId, name).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
  afterAll(async () => {
    for (const backend of open.splice(0)) await backend.close();
    await server?.close();
    await env?.dispose();
  });

  it('serves one set from both, with blobs and batch files in the shared store and index files in each cache', async () => {
    const [a, b] = open as [SearchBackend, SearchBackend];
    const setId = await createImageSet(a);
    await addImagesCsv(a, setId, [0, 1, 2, 3, 4, 5].map((n) => `${urlOf(n)},m${n},t`));
    const service = await createService(b, setId);
    await waitIndexed(a, service.id, 6);
    for (const backend of [a, b]) {
      for (const n of [1, 4]) {
        const res = await searchUpload(backend, service.id, images[n]!, { count: '3' });
        expect(res.statusCode, res.body).toBe(200);
        expect((res.json() as SearchResponse).results[0]?.url).toBe(urlOf(n));
      }
    }
    // Each process saves its own cache's index file (each holds its cache directory's writer lease).
    for (const cache of [dirs.cacheA, dirs.cacheB]) {
      await waitFor(async () => existsSync(path.join(cache, 'indexes', service.id, 'manifest.json')), (saved) => saved, 60_000);
    }
    expect(readdirSync(path.join(dirs.shared, 'blobs')).filter((f) => !f.startsWith('.')).length).toBeGreaterThan(0);

    // A batch task prepared on one process and run by whichever: its files are in the shared store.
    server.set('/red.png', await redPng(), 'image/png');
    const prepared = await prepare(b as unknown as TestBackend, '_0000072', `${server.url('/red.png')}\n${urlOf(2)}\n`, { extra: { granularity: 'dominant' } });
    expect(prepared.statusCode, prepared.body).toBe(200);
    expect((await apply(a as unknown as TestBackend, prepared.taskId)).statusCode).toBe(200);
    const done = await waitForState(a as unknown as TestBackend, prepared.taskId, ['SUCCESS', 'FAILURE']);
    expect(done).toMatchObject({ state: 'SUCCESS', success: 2 });
    expect(readdirSync(path.join(dirs.shared, 'batch', prepared.taskId)).filter((f) => f.startsWith('results-'))).toEqual(['results-0001.jsonl']);

    // Uploads in flight have one folder per process in the shared store; IRIS_DATA_DIR holds nothing.
    expect(readdirSync(path.join(dirs.shared, 'tmp')).sort()).toEqual([a.app.config.instanceId, b.app.config.instanceId].sort());
    expect(readdirSync(dirs.data)).toEqual([]);
  }, 300_000);
});

async function redPng(): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  return sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
}
