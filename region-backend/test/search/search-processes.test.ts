/**
 * Several backend processes (apps) on one database: a process without job workers rebuilds a service's index
 * from the stored embeddings and follows changes indexed by another; a restarted process loads its saved
 * index and catches up with changes made while it was down; a lost index file is rebuilt.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageServer } from '../support/image-server.js';
import { multipart } from '../support/test-app.js';
import {
  addImagesCsv,
  createImageSet,
  createService,
  searchEnvironment,
  searchImages,
  searchUpload,
  serveImages,
  startSearchBackend,
  waitIndexed,
  type SearchBackend,
  type SearchResponse,
} from './search-fixtures.js';

describe('search indexes across processes and restarts', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let server: ImageServer;
  let images: Buffer[];
  let otherDir: string;
  const open: SearchBackend[] = [];
  const urlOf = (n: number) => server.url(`/img/${n}.jpg`);
  const start = async (dataDir: string, workers: boolean) => {
    const backend = await startSearchBackend({ databaseUrl: env.databaseUrl, dataDir, workers, env: { IRIS_SEARCH_POLL_MS: '300' } });
    open.push(backend);
    return backend;
  };
  const stop = async (backend: SearchBackend) => {
    open.splice(open.indexOf(backend), 1);
    await backend.close();
  };
  const topUrl = async (backend: SearchBackend, serviceId: string, n: number) => {
    const res = await searchUpload(backend, serviceId, images[n]!, { count: '20' });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as SearchResponse).results.map((r) => r.url);
  };

  beforeAll(async () => {
    images = await searchImages();
    server = await serveImages(images);
    env = await searchEnvironment();
    otherDir = mkdtempSync(path.join(os.tmpdir(), 'iris-test-search-b-'));
  });
  afterAll(async () => {
    for (const backend of open.splice(0)) await backend.close();
    await server?.close();
    await env?.dispose();
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('follows, restarts from the saved file with catch-up, and rebuilds a lost file', async () => {
    const a = await start(env.dataDir, true);
    const setId = await createImageSet(a);
    await addImagesCsv(a, setId, [0, 1, 2, 3, 4, 5].map((n) => `${urlOf(n)},m${n},t`));
    const service = await createService(a, setId);
    await waitIndexed(a, service.id, 6);

    // A second process with no job workers: no saved file, so it rebuilds from the stored embeddings.
    const b = await start(otherDir, false);
    expect((await topUrl(b, service.id, 2))[0]).toBe(urlOf(2));
    expect(b.app.searchIndexes.describe(service.id)).toMatchObject({ origin: 'rebuild', size: 6 });
    expect(existsSync(path.join(otherDir, 'regions', 'cn-east', 'indexes', service.id, 'manifest.json'))).toBe(true);

    // Changes indexed by the first process reach the second one's index.
    const added = await a.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: { image_url: urlOf(6), meta: 'm6' } });
    expect(added.statusCode, added.body).toBe(200);
    await waitIndexed(a, service.id, 7);
    expect((await topUrl(b, service.id, 6))[0]).toBe(urlOf(6));
    expect(b.app.searchIndexes.describe(service.id)).toMatchObject({ origin: 'rebuild', size: 7 });
    await stop(b);

    // The first process stops (saving its index); another one indexes changes meanwhile.
    await stop(a);
    const c = await start(otherDir, true);
    await addImagesCsv(c, setId, [`${urlOf(7)},m7,t`]);
    await waitIndexed(c, service.id, 8);
    const removal = multipart({ urls_to_delete: { filename: 'd.csv', content: `${urlOf(1)}\n` } });
    expect((await c.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: removal.payload, headers: removal.headers })).statusCode).toBe(200);
    await waitIndexed(c, service.id, 7);
    await stop(c);

    // Restarted without workers: its saved file is loaded and caught up, not rebuilt.
    const a2 = await start(env.dataDir, false);
    const urls = await topUrl(a2, service.id, 7);
    expect(urls[0]).toBe(urlOf(7));
    expect(urls).not.toContain(urlOf(1));
    expect(urls).toHaveLength(7);
    expect(a2.app.searchIndexes.describe(service.id)).toMatchObject({ origin: 'file', size: 7 });
    await stop(a2);

    // A lost index directory is rebuilt at the next start.
    rmSync(path.join(env.dataDir, 'regions', 'cn-east', 'indexes', service.id), { recursive: true, force: true });
    const a3 = await start(env.dataDir, false);
    expect((await topUrl(a3, service.id, 4))[0]).toBe(urlOf(4));
    expect(a3.app.searchIndexes.describe(service.id)).toMatchObject({ origin: 'rebuild', size: 7 });
  }, 300_000);
});
