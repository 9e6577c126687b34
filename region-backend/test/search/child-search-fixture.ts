/**
 * Search tests that need real backend processes (SIGKILL, an environment per process): the search pictures on a
 * loopback server, an embedded PostgreSQL with its data folder, and backend children started with fast polling
 * and one image per indexing transaction, so indexing and rebuilds are slow enough to be watched and
 * interrupted. Call inside a `describe` block; the fields are set once `beforeAll` has run.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { newResourceId } from '@iris/shared';
import { startChildBackend, type ChildBackend } from '../data-sets/child-backend.js';
import type { ImageServer } from '../support/image-server.js';
import { multipart } from '../support/test-app.js';
import { searchEnvironment, searchImages, serveImages, type SearchResponse } from './search-fixtures.js';

export interface ChildSearchFixture {
  env: Awaited<ReturnType<typeof searchEnvironment>>;
  images: Buffer[];
  /** A small pool on the test's database, for checking what the backends committed. */
  db: pg.Pool;
  /** URL of search picture `n` on the loopback server. */
  urlOf(n: number): string;
  /** Starts a backend process; `extra` adds to (or overrides) its environment. Killed after the tests. */
  child(extra?: Record<string, string>): Promise<ChildBackend>;
  /** Searches service `id` with picture `n` (count 3); answers the 200 body with the embedder id (`ver`). */
  search(backend: ChildBackend, id: string, n: number): Promise<SearchResponse & { ver: string }>;
  /** The search service's indexing progress, as its GET answers it. */
  service(backend: ChildBackend, id: string): Promise<ServiceProgress>;
  /** An image set of pictures 0 … n − 1 (`m<n>` metadata, tag `t`) and a `general` search service on it. */
  createIndexedSet(backend: ChildBackend, n: number): Promise<{ setId: string; serviceId: string }>;
}

export interface ServiceProgress {
  n_indexed: number;
  indexed_ratio: number;
}

export function childSearchFixture(): ChildSearchFixture {
  let server: ImageServer;
  const children: ChildBackend[] = [];
  const fixture = {
    urlOf: (n: number) => server.url(`/img/${n}.jpg`),
    child: async (extra: Record<string, string> = {}) => {
      const started = await startChildBackend({ databaseUrl: fixture.env.databaseUrl, dataDir: fixture.env.dataDir, env: { IRIS_SEARCH_POLL_MS: '100', IRIS_SEARCH_INDEX_BATCH: '1', ...extra } });
      children.push(started);
      return started;
    },
    search: async (backend: ChildBackend, id: string, n: number) => {
      const body = multipart({ search: { filename: 'q.jpg', content: fixture.images[n]!, contentType: 'image/jpeg' }, count: '3' });
      const res = await backend.call({ method: 'POST', url: `/search/${id}`, body: body.payload, headers: body.headers });
      expect(res.status, res.text).toBe(200);
      return res.json() as SearchResponse & { ver: string };
    },
    createIndexedSet: async (backend: ChildBackend, n: number) => {
      const setId = newResourceId();
      expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, body: { name: 's' } })).status).toBe(200);
      const csv = multipart({ urls_to_add: { filename: 'a.csv', content: Array.from({ length: n }, (_, k) => `${fixture.urlOf(k)},m${k},t`).join('\n') } });
      expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: csv.payload, headers: csv.headers })).status).toBe(200);
      const serviceId = newResourceId();
      const created = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: serviceId, body: { name: 's', scenario: 'general' } });
      expect(created.status, created.text).toBe(200);
      return { setId, serviceId };
    },
    service: async (backend: ChildBackend, id: string) => (await backend.call({ method: 'GET', url: `/customer_services/_0000172/${id}` })).json() as ServiceProgress,
  } as ChildSearchFixture;
  beforeAll(async () => {
    fixture.images = await searchImages();
    server = await serveImages(fixture.images);
    fixture.env = await searchEnvironment();
    fixture.db = new pg.Pool({ connectionString: fixture.env.databaseUrl, max: 2 });
  });
  afterAll(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await fixture.db?.end();
    await server?.close();
    await fixture.env?.dispose();
  });
  return fixture;
}
