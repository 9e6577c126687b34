/** Downloads the fetcher refuses: private addresses when not allowed, and images over the size limit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, waitFor } from './helpers.js';
import { startImageServer, type ImageServer } from './image-server.js';

const BASE = '/image_sets/_0000014';

describe('refused downloads', () => {
  let images: ImageServer;
  const backends: TestBackend[] = [];

  beforeAll(async () => {
    process.env.IRIS_FETCH_MAX_BYTES = '50000';
    images = await startImageServer();
  });
  afterAll(async () => {
    for (const b of backends) await b.close();
    await images?.close();
  });

  async function failsAtOnce(backend: TestBackend, url: string, reason: RegExp): Promise<void> {
    const id = await createImageSet(backend);
    const one = await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { image_url: url } });
    expect(one.statusCode).toBe(500);
    expect(one.json()).toMatchObject({ error_code: 4001 });
    expect(one.json().message).toMatch(reason);
    const file = fileUpload('urls_to_add', `${url}\n`);
    await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: file.payload, headers: file.headers });
    const set = await waitFor(
      async () => (await backend.call({ method: 'GET', url: `${BASE}/${id}` })).json(),
      (s) => s.status === 'downloaded',
    );
    expect(set).toMatchObject({ n_items: 1, n_failed: 1, n_downloaded: 0 });
    const row = await backend.app.db.pool.query('SELECT attempts, last_error FROM data_set_records WHERE set_id = $1', [id]);
    expect(row.rows[0]).toMatchObject({ attempts: 1 });
    expect(row.rows[0].last_error).toMatch(reason);
  }

  it('fails private and loopback addresses at once when they are not allowed', async () => {
    const backend = await startTestBackend({ IRIS_ALLOW_PRIVATE_URLS: '0' });
    backends.push(backend);
    const before = images.hits.get('/img/1.jpg') ?? 0;
    await failsAtOnce(backend, images.url(1), /address|private|loopback|not allowed/i);
    expect(images.hits.get('/img/1.jpg') ?? 0).toBe(before);
  });

  it('fails images over IRIS_FETCH_MAX_BYTES at once', async () => {
    const backend = await startTestBackend();
    backends.push(backend);
    await failsAtOnce(backend, `${images.base}/big.png`, /larger than/);
    const small = await createImageSet(backend);
    expect((await backend.call({ method: 'POST', url: `${BASE}/${small}`, payload: { image_url: images.url(2) } })).statusCode).toBe(200);
  });
});
