/**
 * Search services on an image set, end to end on one real backend: real PostgreSQL, real embedding model in a
 * worker thread, real HNSW index, images downloaded from a loopback server through the data-set API.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newResourceId } from '@iris/shared';
import sharp from 'sharp';
import { inTransaction } from '../../src/db/transaction.js';
import { vectorToBytes } from '../../src/domains/search-services/embedding-pipeline.js';
import { RecentPixels } from '../../src/images/recent-pixels.js';
import type { RgbImage } from '../../src/images/rgb-image.js';
import { multipart } from '../support/test-app.js';
import type { ImageServer } from '../support/image-server.js';
import {
  addImagesCsv,
  composite,
  createImageSet,
  createService,
  searchEnvironment,
  searchImages,
  searchUpload,
  serveImages,
  startSearchBackend,
  waitFor,
  waitIndexed,
  type SearchBackend,
  type SearchResponse,
} from './search-fixtures.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SECONDS = /^\d+\.\d{3}$/;
const SERVICES = '/customer_services/_0000172';

describe('search on an image set', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let backend: SearchBackend;
  let server: ImageServer;
  let images: Buffer[];
  let setId: string;
  let serviceId: string;
  /** Tags of image n: colour group and parity, so filters have known answers. */
  const tagsOf = (n: number) => [`g${n % 3}`, n % 2 ? 'odd' : 'even'];
  const urlOf = (n: number) => server.url(`/img/${n}.jpg`);
  const COUNT = 14;

  beforeAll(async () => {
    images = await searchImages();
    server = await serveImages(images);
    env = await searchEnvironment();
    backend = await startSearchBackend({ ...env, env: { IRIS_SEARCH_POLL_MS: '300' } });
    setId = await createImageSet(backend);
    await addImagesCsv(
      backend,
      setId,
      Array.from({ length: COUNT }, (_, n) => `${urlOf(n)},meta ${n},${tagsOf(n).join('|')}`),
    );
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await env?.dispose();
  });

  const get = (id: string) => backend.call({ method: 'GET', url: `${SERVICES}/${id}` });

  it('creates a service with the specification fields, then indexes the whole set', async () => {
    // The pictures were just downloaded: their first passes start from the pixels decoded then, and their second
    // passes from the pixels their first passes answered.
    const take = vi.spyOn(RecentPixels.prototype, 'take');
    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}/services`, resourceId: id, payload: { name: 'photos', scenario: 'general' } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['id', 'name', 'scenario', 'image_set_id', 'created_at', 'creator_id', 'indexed_ratio', 'n_indexed', 'n_first_pass_only', 'last_indexed_time', 'last_updated_at', 'status', 'status_duration', 'request_id'].sort(),
    );
    expect(body).toMatchObject({ id, name: 'photos', scenario: 'general', image_set_id: setId, creator_id: 1, indexed_ratio: 0, n_indexed: 0, last_indexed_time: null, last_updated_at: null, status: 'running' });
    expect(body.created_at).toMatch(TIME);
    expect(Number.isInteger(body.status_duration)).toBe(true);
    expect(JSON.parse(res.headers['x-iris-registry'] as string)).toEqual({ live: [id] });
    serviceId = id;

    const indexed = await waitIndexed(backend, id, COUNT);
    expect(indexed.indexed_ratio).toBe(1);
    expect(indexed.last_indexed_time).toMatch(TIME);
    const set = (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${setId}` })).json();
    expect(set.n_downloaded).toBe(COUNT);
    const blobs = new Set((await backend.app.db.pool.query<{ blob_key: string }>('SELECT blob_key FROM data_set_records WHERE set_id = $1', [setId])).rows.map((r) => r.blob_key));
    const taken = (atDownload: boolean) =>
      take.mock.calls.filter((_, i) => take.mock.results[i]!.value !== undefined && (take.mock.contexts[i] === backend.app.recentPixels) === atDownload).map(([key]) => key);
    for (const fromPixels of [taken(true), taken(false)]) {
      expect(fromPixels.length).toBeGreaterThan(COUNT / 2);
      expect(fromPixels.every((key) => blobs.has(key))).toBe(true);
    }
    // Both tables keep their pixels in the process's shared arena, and every slot a pass took was given back or
    // handed on: what the arena holds is what the tables hold.
    const takenPixels = take.mock.results.map((r) => r.value as RgbImage | undefined).filter((p) => p !== undefined);
    expect(takenPixels.every((p) => p.data.buffer instanceof SharedArrayBuffer)).toBe(true);
    const { pixelArena, recentPixels, secondPassPixels } = backend.app;
    expect(pixelArena.held).toBe(recentPixels.count + secondPassPixels.count);
    take.mockRestore();
  });

  it('indexes in two passes: the second completes each first-pass vector into the one-pass vector, and the index takes it', async () => {
    const pool = backend.app.db.pool;
    const { pipeline } = (await pool.query<{ pipeline: string }>('SELECT pipeline FROM search_services WHERE id = $1', [serviceId])).rows[0]!;
    const stored = await pool.query<{ blob_key: string; incomplete: boolean }>(
      `SELECT e.blob_key, e.features IS NULL OR e.view_sum IS NOT NULL AS incomplete FROM image_embeddings e
       JOIN search_index_items i ON i.blob_key = e.blob_key AND i.service_id = $1 AND i.deleted_at IS NULL WHERE e.pipeline = $2`,
      [serviceId, pipeline],
    );
    expect(stored.rows).toHaveLength(COUNT);
    expect(stored.rows.filter((r) => r.incomplete)).toEqual([]);
    // Image 4 back to its first pass, as the indexer leaves a new image: first-pass vector, view sum, no features.
    const record = (await pool.query<{ blob_key: string; record_id: string; seq: string }>(
      `SELECT i.blob_key, i.record_id, i.seq FROM search_index_items i JOIN data_set_records r ON r.id = i.record_id WHERE i.service_id = $1 AND r.url = $2`,
      [serviceId, urlOf(4)],
    )).rows[0]!;
    const complete = (await pool.query<{ vector: Buffer; features: Buffer }>('SELECT vector, features FROM image_embeddings WHERE blob_key = $1 AND pipeline = $2', [record.blob_key, pipeline])).rows[0]!;
    const image = (await backend.app.blobs.get(record.blob_key))!;
    const first = await backend.app.inference.run('search-index-embed', { image, scenario: 'general', pass: 'first' }, { priority: 'background' });
    expect(first.features).toBeNull();
    expect(vectorToBytes(first.vector).equals(complete.vector)).toBe(false);
    await inTransaction(pool, async (client) => {
      await client.query('SELECT 1 FROM search_services WHERE id = $1 FOR UPDATE', [serviceId]);
      await client.query('UPDATE image_embeddings SET vector = $3, features = NULL, view_sum = $4 WHERE blob_key = $1 AND pipeline = $2', [
        record.blob_key,
        pipeline,
        vectorToBytes(first.vector),
        vectorToBytes(first.viewSum!, first.viewSum!.length),
      ]);
      await client.query(`UPDATE search_index_items SET first_pass_only = true, seq = nextval('search_index_item_seq') WHERE service_id = $1 AND record_id = $2`, [serviceId, record.record_id]);
    });
    const waiting = (await get(serviceId)).json();
    expect(waiting.n_indexed).toBe(COUNT);
    expect([0, 1]).toContain(waiting.n_first_pass_only);

    await waitIndexed(backend, serviceId, COUNT);
    const completed = (await pool.query<{ vector: Buffer; features: Buffer; view_sum: Buffer | null }>('SELECT vector, features, view_sum FROM image_embeddings WHERE blob_key = $1 AND pipeline = $2', [record.blob_key, pipeline])).rows[0]!;
    // Bit for bit the vector and keypoints one pass makes.
    expect(completed.vector.equals(complete.vector)).toBe(true);
    expect(completed.features.equals(complete.features)).toBe(true);
    expect(completed.view_sum).toBeNull();
    const item = (await pool.query<{ seq: string; first_pass_only: boolean }>('SELECT seq, first_pass_only FROM search_index_items WHERE service_id = $1 AND record_id = $2', [serviceId, record.record_id])).rows[0]!;
    expect(item.first_pass_only).toBe(false);
    expect(Number(item.seq)).toBeGreaterThan(Number(record.seq));
    // The index serves the completed vector: a small thumbnail of the picture (what the thumbnail views are for) finds it, verified.
    const thumbnail = await sharp(images[4]!).resize(112).jpeg().toBuffer();
    const found = (await searchUpload(backend, serviceId, thumbnail, { count: '3' })).json() as SearchResponse;
    expect(found.results[0]!.url).toBe(urlOf(4));
  });

  it('takes a completed embedding into an index whose item still holds the first-pass vector, without embedding again', async () => {
    const pool = backend.app.db.pool;
    const record = (await pool.query<{ record_id: string; seq: string }>(
      `SELECT i.record_id, i.seq FROM search_index_items i JOIN data_set_records r ON r.id = i.record_id WHERE i.service_id = $1 AND r.url = $2`,
      [serviceId, urlOf(6)],
    )).rows[0]!;
    const embeddings = (await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n as number;
    // Another service sharing the image completed its embedding; this service's item was written before that.
    await inTransaction(pool, async (client) => {
      await client.query('SELECT 1 FROM search_services WHERE id = $1 FOR UPDATE', [serviceId]);
      await client.query(`UPDATE search_index_items SET first_pass_only = true, seq = nextval('search_index_item_seq') WHERE service_id = $1 AND record_id = $2`, [serviceId, record.record_id]);
    });
    await waitIndexed(backend, serviceId, COUNT);
    const item = (await pool.query<{ seq: string }>('SELECT seq FROM search_index_items WHERE service_id = $1 AND record_id = $2', [serviceId, record.record_id])).rows[0]!;
    expect(Number(item.seq)).toBeGreaterThan(Number(record.seq) + 1);
    expect((await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n).toBe(embeddings);
  });

  it('finds the record of a query image first, by upload and by URL, in the specification shape', async () => {
    for (const n of [0, 5, 9, 12]) {
      const res = await searchUpload(backend, serviceId, images[n]!, { count: '5' });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as SearchResponse;
      expect(body.results).toHaveLength(5);
      expect(body.results[0]).toMatchObject({ url: urlOf(n), metadata: `meta ${n}`, tags: tagsOf(n).join('|') });
      // Verified (a screenshot kept as it came verifies with 40 inliers: 0.95), or the vectors alone say so.
      expect(body.results[0]!.score).toBeGreaterThanOrEqual(0.95);
      for (let i = 1; i < body.results.length; i++) expect(body.results[i]!.score).toBeLessThanOrEqual(body.results[i - 1]!.score);
      for (const r of body.results) {
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(1);
      }
    }
    const res = await backend.call({ method: 'POST', url: `/search/${serviceId}`, payload: `url=${encodeURIComponent(urlOf(3))}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as SearchResponse;
    expect(Object.keys(body).sort()).toEqual(
      ['is_err', 'request_id', 'results', 'loc', 'ds', 'detect_time', 'detection_score', 'download_time', 'preprocess_time', 'searchtime', 'time', 'ver'].sort(),
    );
    expect(body).toMatchObject({ is_err: 0, loc: [0, 0, 1, 1], ds: setId, detection_score: null });
    for (const field of ['detect_time', 'download_time', 'preprocess_time', 'searchtime', 'time']) expect(body[field]).toMatch(SECONDS);
    expect(typeof body.ver).toBe('string');
    expect(body.results).toHaveLength(COUNT); // default count 20, only 14 images
    expect(body.results[0]!.url).toBe(urlOf(3));
  });

  it('embeds only the loc region of the query image', async () => {
    const query = await composite(images[7]!, images[2]!);
    const res = await searchUpload(backend, serviceId, query, { loc: '0-0-0.5-0.5', count: '3' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as SearchResponse;
    expect(body.loc).toEqual([0, 0, 0.5, 0.5]);
    expect(body.results[0]!.url).toBe(urlOf(7));
    // The same region as a JSON list, and the other quarter finds the other image.
    const other = (await searchUpload(backend, serviceId, query, { loc: '[0.5, 0, 0.5, 0.5]', count: '3' })).json() as SearchResponse;
    expect(other.results[0]!.url).toBe(urlOf(2));
  });

  it('restricts results with tag filters: |-joined AND and nested JSON', async () => {
    const check = async (tags: string, expected: number[]) => {
      const res = await searchUpload(backend, serviceId, images[1]!, { tags, count: '20' });
      expect(res.statusCode, res.body).toBe(200);
      const urls = (res.json() as SearchResponse).results.map((r) => r.url).sort();
      expect(urls).toEqual(expected.map(urlOf).sort());
    };
    const all = Array.from({ length: COUNT }, (_, n) => n);
    await check('g1|odd', all.filter((n) => n % 3 === 1 && n % 2 === 1));
    await check('g1', all.filter((n) => n % 3 === 1));
    await check(JSON.stringify({ and: ['even', { or: ['g0', 'g2'] }] }), all.filter((n) => n % 2 === 0 && n % 3 !== 1));
    await check(JSON.stringify({ or: ['g0', { and: ['g1', 'odd'] }] }), all.filter((n) => n % 3 === 0 || (n % 3 === 1 && n % 2 === 1)));
    await check('nope', []);
  });

  it('applies added, updated and deleted records to the index without a rebuild', async () => {
    const pool = backend.app.db.pool;
    const embeddingsBefore = (await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n as number;
    const seqBefore = new Map(
      (await pool.query<{ record_id: number; seq: number }>('SELECT record_id, seq FROM search_index_items WHERE service_id = $1', [serviceId])).rows.map((r) => [
        Number(r.record_id),
        Number(r.seq),
      ]),
    );

    // Add one image (form), update the tags and meta of another, delete a third.
    const added = await backend.call({
      method: 'POST',
      url: `/image_sets/_0000014/${setId}`,
      payload: `image_url=${encodeURIComponent(urlOf(COUNT))}&meta=new&tags=fresh`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(added.statusCode, added.body).toBe(200);
    await addImagesCsv(backend, setId, [`${urlOf(4)},meta 4 updated,retagged`]);
    const removal = multipart({ urls_to_delete: { filename: 'd.csv', content: `${urlOf(6)}\n`, contentType: 'text/csv' } });
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: removal.payload, headers: removal.headers })).statusCode).toBe(200);

    await waitFor(
      async () => (await searchUpload(backend, serviceId, images[4]!, { tags: 'retagged', count: '3' })).json() as SearchResponse,
      (body) => body.results[0]?.url === urlOf(4),
    );
    const service = await waitIndexed(backend, serviceId, COUNT); // +1 −1
    expect(service.indexed_ratio).toBe(1);

    const fresh = (await searchUpload(backend, serviceId, images[COUNT]!, { count: '2' })).json() as SearchResponse;
    expect(fresh.results[0]).toMatchObject({ url: urlOf(COUNT), metadata: 'new', tags: 'fresh' });
    const updated = (await searchUpload(backend, serviceId, images[4]!, { count: '1' })).json() as SearchResponse;
    expect(updated.results[0]).toMatchObject({ url: urlOf(4), metadata: 'meta 4 updated', tags: 'retagged' });
    expect(((await searchUpload(backend, serviceId, images[4]!, { tags: 'g1' })).json() as SearchResponse).results.map((r) => r.url)).not.toContain(urlOf(4));
    const deleted = (await searchUpload(backend, serviceId, images[6]!, { count: '20' })).json() as SearchResponse;
    expect(deleted.results.map((r) => r.url)).not.toContain(urlOf(6));

    // Only the new image was embedded; untouched records kept their index entries.
    expect((await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n).toBe(embeddingsBefore + 1);
    const after = (await pool.query<{ record_id: number; seq: number; url: string }>(
      `SELECT i.record_id, i.seq, r.url FROM search_index_items i JOIN data_set_records r ON r.id = i.record_id WHERE i.service_id = $1`,
      [serviceId],
    )).rows;
    const changed = after.filter((r) => seqBefore.get(Number(r.record_id)) !== Number(r.seq)).map((r) => r.url).sort();
    expect(changed).toEqual([urlOf(4), urlOf(6), urlOf(COUNT)].sort());
  });

  it('drops records purged while the service was not indexing', async () => {
    const pool = backend.app.db.pool;
    // As if the indexer had been away for 8 days and the tombstone of a deleted record was purged meanwhile.
    await pool.query(`UPDATE search_services SET caught_up_at = now() - interval '8 days' WHERE id = $1`, [serviceId]);
    await pool.query('DELETE FROM data_set_records WHERE set_id = $1 AND url = $2', [setId, urlOf(8)]);
    await addImagesCsv(backend, setId, [`${urlOf(15)},meta 15,g0`]); // a change, so the indexer runs
    await waitFor(
      async () => (await pool.query('SELECT deleted_at FROM search_index_items i WHERE service_id = $1 AND NOT EXISTS (SELECT 1 FROM data_set_records r WHERE r.id = i.record_id)', [serviceId])).rows,
      (rows) => rows.length === 1 && rows[0].deleted_at !== null,
    );
    await waitIndexed(backend, serviceId, COUNT); // +1 −1
    const urls = ((await searchUpload(backend, serviceId, images[8]!, { count: '20' })).json() as SearchResponse).results.map((r) => r.url);
    expect(urls).not.toContain(urlOf(8));
    expect(urls).toContain(urlOf(15));
  });

  it('indexes the set again, without embedding it again, when the pipeline of the scenario changed', async () => {
    const pool = backend.app.db.pool;
    const embeddings = (await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n as number;
    const itemsBefore = (await pool.query('SELECT count(*)::int AS n FROM search_index_items WHERE service_id = $1 AND deleted_at IS NULL', [serviceId])).rows[0].n as number;
    await pool.query(`UPDATE search_services SET pipeline = 'an-older-model/000000000000' WHERE id = $1`, [serviceId]);
    await waitFor(
      async () => (await pool.query('SELECT pipeline, n_indexed, source_seq FROM search_services WHERE id = $1', [serviceId])).rows[0],
      (row) => row.pipeline !== 'an-older-model/000000000000' && row.n_indexed === itemsBefore && row.source_seq > 0,
    );
    await waitFor(
      async () => (await searchUpload(backend, serviceId, images[2]!, { count: '20' })).json() as SearchResponse,
      (body) => body.results[0]?.url === urlOf(2) && body.results.length === itemsBefore,
    );
    expect((await pool.query('SELECT count(*)::int AS n FROM image_embeddings')).rows[0].n).toBe(embeddings);
  });

  it('answers parameter and image errors with the resource error shape', async () => {
    const expectError = async (res: Awaited<ReturnType<typeof searchUpload>>, status: number, code: number) => {
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toMatchObject({ error_code: code, request_id: expect.any(String), message: expect.any(String) });
    };
    const img = images[0]!;
    await expectError(await searchUpload(backend, serviceId, img, { count: '0' }), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, img, { count: 'ten' }), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, img, { loc: '0.5-0.5-0.8-0.2' }), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, img, { loc: 'a-b-c-d' }), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, img, { tags: '{"xor": ["a"]}' }), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, Buffer.from('<html>not an image</html>')), 400, 5001);
    await expectError(await searchUpload(backend, serviceId, img, { url: urlOf(1) }), 400, 5001);
    await expectError(await backend.call({ method: 'POST', url: `/search/${serviceId}`, payload: { count: 3 } }), 400, 5001);
    await expectError(await backend.call({ method: 'POST', url: `/search/${serviceId}`, payload: { url: server.url('/missing.jpg') } }), 500, 4001);
    await expectError(await searchUpload(backend, newResourceId(), img), 404, 2002);
    // Another account's service does not exist for the caller.
    const foreign = multipart({ search: { filename: 'q.jpg', content: img } });
    await expectError(await backend.call({ method: 'POST', url: `/search/${serviceId}`, accountId: 2, payload: foreign.payload, headers: foreign.headers }), 404, 2002);
    // JSON bodies with string values, and a trailing slash.
    const json = await backend.call({ method: 'POST', url: `/search/${serviceId}/`, payload: { url: urlOf(2), count: '2' } });
    expect(json.statusCode, json.body).toBe(200);
    expect((json.json() as SearchResponse).results[0]!.url).toBe(urlOf(2));
  });

  it('validates creation: scenario, name and set', async () => {
    const create = (payload: object, set = setId) => backend.call({ method: 'POST', url: `/image_sets/_0000014/${set}/services`, resourceId: newResourceId(), payload });
    expect((await create({ name: 'x', scenario: 'nonsense' })).json()).toMatchObject({ error_code: 2003 });
    expect((await create({ name: 'x' })).statusCode).toBe(400);
    expect((await create({ name: 'x' })).json()).toMatchObject({ error_code: 2003 });
    expect((await create({ name: ' ', scenario: 'general' })).json()).toMatchObject({ error_code: 5001 });
    const missing = await create({ name: 'x', scenario: 'general' }, newResourceId());
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error_code: 2001 });
    // A form body, a scenario in capitals, a long name truncated to 32 characters.
    const form = await backend.call({
      method: 'POST',
      url: `/image_sets/_0000014/${setId}/services`,
      resourceId: newResourceId(),
      payload: `name=${encodeURIComponent('名'.repeat(40))}&scenario=Fashion`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.json()).toMatchObject({ name: '名'.repeat(32), scenario: 'fashion' });
    expect((await backend.call({ method: 'DELETE', url: `${SERVICES}/${form.json().id}` })).statusCode).toBe(204);
  });

  it('lists, renames and deletes services; a set with a live service cannot be deleted', async () => {
    const list = await backend.call({ method: 'GET', url: SERVICES });
    expect(list.statusCode).toBe(200);
    const listed = list.json().results.find((s: { id: string }) => s.id === serviceId);
    expect(listed).toMatchObject({ id: serviceId, n_indexed: COUNT });
    expect(listed.request_id).toBeUndefined();
    expect((await backend.call({ method: 'GET', url: SERVICES, accountId: 2 })).json().results).toEqual([]);

    const renamed = await backend.call({ method: 'PUT', url: `${SERVICES}/${serviceId}`, payload: { name: 'renamed' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ id: serviceId, name: 'renamed', last_updated_at: expect.stringMatching(TIME) });
    const form = await backend.call({ method: 'PUT', url: `${SERVICES}/${serviceId}`, payload: 'name=again', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json()).toMatchObject({ name: 'again' });
    expect((await get(serviceId)).json()).toMatchObject({ name: 'again' });
    expect((await backend.call({ method: 'PUT', url: `${SERVICES}/${serviceId}`, payload: { name: '' } })).json()).toMatchObject({ error_code: 5001 });
    expect((await backend.call({ method: 'PUT', url: `${SERVICES}/${newResourceId()}`, payload: { name: 'x' } })).statusCode).toBe(404);

    const refused = await backend.call({ method: 'DELETE', url: `/image_sets/_0000014/${setId}` });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error_code: 3001 });

    const removed = await backend.call({ method: 'DELETE', url: `${SERVICES}/${serviceId}` });
    expect(removed.statusCode).toBe(204);
    expect(JSON.parse(removed.headers['x-iris-registry'] as string)).toEqual({ deleted: [serviceId] });
    const gone = await get(serviceId);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error_code: 2002 });
    expect((await backend.call({ method: 'DELETE', url: `${SERVICES}/${serviceId}` })).json()).toMatchObject({ error_code: 2002 });
    expect((await searchUpload(backend, serviceId, images[0]!)).json()).toMatchObject({ error_code: 2002 });
    expect(backend.app.searchIndexes.loaded).not.toContain(serviceId);

    expect((await backend.call({ method: 'DELETE', url: `/image_sets/_0000014/${setId}` })).statusCode).toBe(204);
  });

  it('answers an empty list for a service whose index is empty', async () => {
    const empty = await createImageSet(backend, 'empty');
    const svc = await createService(backend, empty);
    const res = await searchUpload(backend, svc.id, images[0]!);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as SearchResponse).results).toEqual([]);
  });
});
