/**
 * Two backend processes of one region with `IRIS_VECTOR_STORE=pgvector`: metadata in the region's PostgreSQL,
 * vectors in a separate pgvector database (a native PostgreSQL 15 with pgvector, and PGlite's `vector` extension
 * over the wire protocol, through IRIS_VECTOR_DATABASE_URL). A record indexed through one process is found through the other at once, a
 * removal likewise, and neither process holds the index in memory or on disk.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageServer } from '../support/image-server.js';
import { pgvectorEngines, startPgVectorServer, type PgVectorServer } from '../support/pgvector-server.js';
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

describe.each(pgvectorEngines())('search on a shared pgvector store on %s', (engine) => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let vectors: PgVectorServer;
  let server: ImageServer;
  let images: Buffer[];
  let otherDir: string;
  const open: SearchBackend[] = [];
  const urlOf = (n: number) => server.url(`/img/${n}.jpg`);
  const start = async (dataDir: string, workers: boolean) => {
    const backend = await startSearchBackend({
      databaseUrl: env.databaseUrl,
      dataDir,
      workers,
      env: { IRIS_VECTOR_STORE: 'pgvector', IRIS_VECTOR_DATABASE_URL: vectors.url },
    });
    open.push(backend);
    return backend;
  };
  const topUrls = async (backend: SearchBackend, serviceId: string, n: number) => {
    const res = await searchUpload(backend, serviceId, images[n]!, { count: '20' });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as SearchResponse).results.map((r) => r.url);
  };

  beforeAll(async () => {
    images = await searchImages();
    server = await serveImages(images);
    env = await searchEnvironment();
    vectors = await startPgVectorServer({ engine });
    otherDir = mkdtempSync(path.join(os.tmpdir(), 'iris-test-search-pgvector-'));
  }, 180_000);
  afterAll(async () => {
    for (const backend of open.splice(0)) await backend.close();
    await vectors?.close();
    await server?.close();
    await env?.dispose();
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('finds through one process what the other indexed, at once, with the index in neither', async () => {
    const a = await start(env.dataDir, true);
    const b = await start(otherDir, false);
    const setId = await createImageSet(a);
    await addImagesCsv(a, setId, [0, 1, 2, 3, 4, 5].map((n) => `${urlOf(n)},m${n},t`));
    const service = await createService(a, setId);
    await waitIndexed(a, service.id, 6);

    expect((await topUrls(b, service.id, 2))[0]).toBe(urlOf(2));
    expect((await topUrls(a, service.id, 3))[0]).toBe(urlOf(3));

    // Indexed through the first process (it runs the jobs), found through the second at its next query.
    const added = await a.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: { image_url: urlOf(6), meta: 'm6' } });
    expect(added.statusCode, added.body).toBe(200);
    await waitIndexed(a, service.id, 7);
    const urls = await topUrls(b, service.id, 6);
    expect(urls[0]).toBe(urlOf(6));
    expect(urls).toHaveLength(7);

    const removal = multipart({ urls_to_delete: { filename: 'd.csv', content: `${urlOf(1)}\n` } });
    expect((await a.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: removal.payload, headers: removal.headers })).statusCode).toBe(200);
    await waitIndexed(a, service.id, 6);
    expect(await topUrls(b, service.id, 1)).not.toContain(urlOf(1));

    // Neither process holds the index: no vectors in memory, no index files; the rows are in the vector database.
    for (const [backend, dir] of [
      [a, env.dataDir],
      [b, otherDir],
    ] as const) {
      expect(await topUrls(backend, service.id, 5)).toHaveLength(6);
      expect(backend.app.searchIndexes.describe(service.id)).toMatchObject({ kind: 'pgvector', size: 6, bytes: 0 });
      expect(existsSync(path.join(dir, 'regions', 'cn-east', 'indexes', service.id))).toBe(false);
    }
    const vectorDb = vectors.pool(1);
    const rows = await vectorDb.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM iris_vectors_vector256 v JOIN iris_vector_indexes i ON i.no = v.index_no WHERE i.key = $1`,
      [service.id],
    );
    expect(rows.rows[0]!.n).toBe(6);
    const region = new pg.Client({ connectionString: env.databaseUrl });
    await region.connect();
    try {
      expect((await region.query(`SELECT to_regclass('iris_vector_indexes') AS t`)).rows[0].t).toBeNull();
    } finally {
      await region.end();
    }

    // A process started later serves the same index without building anything.
    const c = await start(mkdtempSync(path.join(otherDir, 'c-')), false);
    expect((await topUrls(c, service.id, 4))[0]).toBe(urlOf(4));
    expect(c.app.searchIndexes.describe(service.id)).toMatchObject({ kind: 'pgvector', origin: 'file', size: 6 });
  }, 300_000);
});
