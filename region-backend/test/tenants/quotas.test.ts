/**
 * The backend's quotas (README "Quotas"): records per set, records per account, stored bytes, search
 * services per set and daily bad-case reports, with the values the edge passes in the signed context.
 * A refused add changes nothing and queues no download.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId, type Quotas } from '@iris/shared';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload } from '../data-sets/helpers.js';
import { startImageServer, type ImageServer } from '../data-sets/image-server.js';

const BASE = '/image_sets/_0000014';

describe('backend quotas', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer();
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const addFile = (accountId: number, setId: string, urls: string[], quotas: Quotas) => {
    const upload = fileUpload('urls_to_add', urls.map((u) => `${u},meta`).join('\n'));
    return backend.call({ method: 'POST', url: `${BASE}/${setId}`, accountId, quotas, payload: upload.payload, headers: upload.headers });
  };
  const items = async (accountId: number, setId: string) => (await backend.call({ method: 'GET', url: `${BASE}/${setId}`, accountId })).json().n_items as number;
  const pendingJobs = async (setId: string) =>
    Number((await backend.app.db.pool.query("SELECT count(*) AS n FROM pgboss.job WHERE name = 'data-sets.download' AND data->>'setId' = $1", [setId])).rows[0].n);

  it('refuses records over the per-set quota with 403/3008, changing nothing and queuing no download', async () => {
    const quotas = { ...DEFAULT_QUOTAS, recordsPerSet: 3 };
    const setId = await createImageSet(backend, 'per set', 41);
    expect((await addFile(41, setId, [images.url(1), images.url(2), images.url(3)], quotas)).statusCode).toBe(200);
    const jobsBefore = await pendingJobs(setId);
    const over = await addFile(41, setId, [images.url(4), images.url(5)], quotas);
    expect([over.statusCode, over.json().error_code]).toEqual([403, 3008]);
    expect(await items(41, setId)).toBe(3);
    expect(await pendingJobs(setId)).toBe(jobsBefore);
    // Updating records that exist is not growth: allowed at the quota.
    expect((await addFile(41, setId, [images.url(1)], quotas)).statusCode).toBe(200);
  });

  it('refuses records over the per-account quota with 403/3009, across sets', async () => {
    const quotas = { ...DEFAULT_QUOTAS, records: 4 };
    const first = await createImageSet(backend, 'a', 42);
    const second = await createImageSet(backend, 'b', 42);
    expect((await addFile(42, first, [images.url(1), images.url(2), images.url(3)], quotas)).statusCode).toBe(200);
    const over = await addFile(42, second, [images.url(4), images.url(5)], quotas);
    expect([over.statusCode, over.json().error_code]).toEqual([403, 3009]);
    expect(await items(42, second)).toBe(0);
    // Another account is not affected by account 42's count.
    const other = await createImageSet(backend, 'c', 43);
    expect((await addFile(43, other, [images.url(4), images.url(5)], quotas)).statusCode).toBe(200);
  });

  it('refuses new images once the account stores its byte quota (403/3010), before downloading', async () => {
    const quotas = { ...DEFAULT_QUOTAS, storedBytes: 1 };
    const setId = await createImageSet(backend, 'bytes', 44);
    const addOne = (n: number) => backend.call({ method: 'POST', url: `${BASE}/${setId}`, accountId: 44, quotas, payload: { image_url: images.url(n) } });
    expect((await addOne(10)).statusCode).toBe(200);
    const bytes = Number((await backend.app.db.pool.query('SELECT sum(bytes) AS b FROM url_blobs WHERE account_id = 44')).rows[0].b);
    expect(bytes).toBeGreaterThan(100);
    // Counted per refused URL: downloads queued by the tests above may still be reaching the server.
    const hitsOf = (n: number) => images.hits.get(new URL(images.url(n)).pathname) ?? 0;
    const over = await addOne(11);
    expect([over.statusCode, over.json().error_code]).toEqual([403, 3010]);
    expect([(await addFile(44, setId, [images.url(12)], quotas)).json().error_code]).toEqual([3010]);
    expect([hitsOf(11), hitsOf(12)]).toEqual([0, 0]);
  });

  it('limits search services per set (403/3007)', async () => {
    const quotas = { ...DEFAULT_QUOTAS, searchServicesPerSet: 2 };
    const setId = await createImageSet(backend, 'services', 45);
    const create = () =>
      backend.call({ method: 'POST', url: `${BASE}/${setId}/services`, accountId: 45, quotas, resourceId: newResourceId(), payload: { name: 's', scenario: 'general' } });
    expect((await create()).statusCode).toBe(200);
    expect((await create()).statusCode).toBe(200);
    const over = await create();
    expect([over.statusCode, over.json().error_code]).toEqual([403, 3007]);
    expect(over.headers['x-iris-registry']).toBeUndefined();
  });

  it('limits bad-case reports per day (403/3011)', async () => {
    const quotas = { ...DEFAULT_QUOTAS, dailyBadCases: 2 };
    const report = (accountId: number) =>
      backend.call({ method: 'POST', url: '/bad_cases/_0000204', accountId, quotas, payload: { service_id: '_0000049', request_id: 'r1' } });
    expect((await report(46)).statusCode).toBe(200);
    expect((await report(46)).statusCode).toBe(200);
    const over = await report(46);
    expect([over.statusCode, over.json().error_code]).toEqual([403, 3011]);
    expect((await report(47)).statusCode).toBe(200);
  });
});
