/**
 * Durability and multi-process safety of indexing: a backend process killed with SIGKILL in the middle of
 * indexing (its advisory lock and its pg-boss job die with it) is replaced, and the new process finishes from
 * the last committed batch; two processes with job workers index one set together without conflict.
 */
import { describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { multipart } from '../support/test-app.js';
import {
  addImagesCsv,
  createImageSet,
  createService,
  searchUpload,
  startSearchBackend,
  waitFor,
  waitIndexed,
  type SearchResponse,
} from './search-fixtures.js';
import { childSearchFixture } from './child-search-fixture.js';

describe('search indexing durability', () => {
  // One image per transaction and the three-view scenario: indexing is slow enough to be caught half-way.
  const fixture = childSearchFixture();
  const { urlOf, child, service: serviceOf } = fixture;

  it('finishes indexing after the indexing process is killed', async () => {
    const first = await child();
    const setId = newResourceId();
    expect((await first.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, body: { name: 's' } })).status).toBe(200);
    const file = multipart({ urls_to_add: { filename: 'a.csv', content: Array.from({ length: 16 }, (_, n) => `${urlOf(n)},m${n},t`).join('\n') } });
    expect((await first.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: file.payload, headers: file.headers })).status).toBe(200);
    await waitFor(async () => (await first.call({ method: 'GET', url: `/image_sets/_0000014/${setId}` })).json() as { status: string }, (s) => s.status === 'downloaded');

    const serviceId = newResourceId();
    const created = await first.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: serviceId, body: { name: 's', scenario: 'fashion' } });
    expect(created.status, created.text).toBe(200);
    const before = await waitFor(() => serviceOf(first, serviceId), (s) => s.n_indexed >= 2, 120_000);
    await first.kill('SIGKILL');
    expect(before.n_indexed).toBeLessThan(16);

    const second = await child();
    await waitFor(() => serviceOf(second, serviceId), (s) => s.n_indexed === 16, 120_000);
    const body = multipart({ search: { filename: 'q.jpg', content: fixture.images[9]! }, count: '3' });
    const res = await second.call({ method: 'POST', url: `/search/${serviceId}`, body: body.payload, headers: body.headers });
    expect(res.status, res.text).toBe(200);
    expect((res.json() as SearchResponse).results[0]!.url).toBe(urlOf(9));

    // Each image embedded once, each record indexed once.
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: fixture.env.databaseUrl });
    await client.connect();
    try {
      const embeddings = await client.query('SELECT count(*)::int AS n FROM image_embeddings');
      const items = await client.query('SELECT count(*)::int AS n, count(DISTINCT record_id)::int AS d FROM search_index_items WHERE service_id = $1 AND deleted_at IS NULL', [serviceId]);
      expect(embeddings.rows[0].n).toBe(16);
      expect(items.rows[0]).toEqual({ n: 16, d: 16 });
    } finally {
      await client.end();
    }
    await second.kill('SIGTERM');
  }, 300_000);

  it('lets two processes with job workers index one set', async () => {
    const x = await startSearchBackend({ ...fixture.env, env: { IRIS_SEARCH_POLL_MS: '200', IRIS_SEARCH_INDEX_BATCH: '2' } });
    const y = await startSearchBackend({ ...fixture.env, env: { IRIS_SEARCH_POLL_MS: '200', IRIS_SEARCH_INDEX_BATCH: '2' } });
    try {
      // One data directory, one process that saves indexes in it: once the lease of the process killed above has
      // expired, one of the two takes it, and only one.
      const writers = await waitFor(
        async () => [await x.app.searchIndexes.isWriter(), await y.app.searchIndexes.isWriter()],
        (held) => held.some(Boolean),
        120_000,
      );
      expect(writers.filter(Boolean)).toHaveLength(1);
      const setId = await createImageSet(x);
      const service = await createService(y, setId);
      await addImagesCsv(x, setId, [0, 2, 4, 6, 8, 10, 12, 14].map((n) => `${urlOf(n)},m${n},t`));
      await addImagesCsv(y, setId, [1, 3, 5, 7, 9, 11, 13, 15].map((n) => `${urlOf(n)},m${n},t`));
      await waitIndexed(x, service.id, 16);
      for (const [backend, n] of [[x, 3], [y, 12]] as const) {
        const res = await searchUpload(backend, service.id, fixture.images[n]!, { count: '20' });
        const results = (res.json() as SearchResponse).results;
        expect(results[0]!.url).toBe(urlOf(n));
        expect(results).toHaveLength(16);
      }
    } finally {
      await x.close();
      await y.close();
    }
  }, 300_000);
});
