/**
 * Record browsing, label counts and thumbnails on a real backend (real PostgreSQL, real downloads from a
 * loopback server, real blob store): scoped to the account and the set's kind even without the edge.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { photoJpeg } from '../../../test/support/test-images.js';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from '../../../test/support/test-app.js';
import { waitUntil } from '../../../test/support/wait-for.js';

interface Page {
  total: number;
  n_items: number;
  n_downloaded: number;
  n_failed: number;
  page: number;
  count: number;
  results: { id: string; url: string; status: string; last_error: string | null; meta: string; tags: string[]; label: string; product_id: string; width: number | null }[];
}

describe('record browsing and thumbnails', () => {
  let backend: TestBackend;
  let images: ImageServer;
  const imageSet = newResourceId();
  const productSet = newResourceId();
  const trainingSet = newResourceId();

  const get = (url: string, accountId = 1, headers: Record<string, string> = {}) => backend.call({ method: 'GET', url, accountId, headers });
  const page = async (url: string, accountId = 1) => {
    const res = await get(url, accountId);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };
  const settled = (kind: string, id: string, expected: number) =>
    waitUntil(
      () => page(`/iris/${kind}/${id}/records?count=100`),
      (p) => p.total === expected && p.n_downloaded + p.n_failed === expected && p.results.every((r) => r.status !== 'pending'),
      30_000,
    );

  beforeAll(async () => {
    images = await startImageServer();
    for (let n = 0; n < 5; n++) images.set(`/img/${n}.jpg`, await photoJpeg(400 + n * 40, 300, n + 1));
    backend = await startTestBackend({}, { workers: true });
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'browse' } })).statusCode).toBe(200);
    const csv = [0, 1, 2].map((n) => `${images.url(`/img/${n}.jpg`)},photo ${n},t${n}|all`).concat(`${images.url('/gone.jpg')},gone,all`).join('\n');
    const upload = multipart({ urls_to_add: { filename: 'a.csv', content: csv, contentType: 'text/csv' } });
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${imageSet}`, payload: upload.payload, headers: upload.headers })).statusCode).toBe(200);

    expect((await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: productSet, payload: { name: 'catalogue' } })).statusCode).toBe(200);
    const product = { product_id: 'sku-1', image_url: images.url('/img/3.jpg'), price: 9.5, keywords: 'red shoe' };
    expect((await backend.call({ method: 'POST', url: `/product_sets/_0000178/${productSet}/products`, payload: product })).statusCode).toBe(200);

    expect((await backend.call({ method: 'POST', url: '/custom_training/_0000194/training_sets', resourceId: trainingSet, payload: { name: 'pets', description: 'd' } })).statusCode).toBe(200);
    const labels = multipart({ urls_to_add: { filename: 'l.csv', content: [0, 1, 2, 4].map((n) => `${images.url(`/img/${n}.jpg`)},${n < 3 ? 'cat' : 'dog'}`).join('\n'), contentType: 'text/csv' } });
    expect((await backend.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${trainingSet}/images`, payload: labels.payload, headers: labels.headers })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  it('lists a set’s records in order with their state and the reason of a failure, paged and filtered', async () => {
    const all = await settled('image_sets', imageSet, 4);
    expect(all.results.map((r) => r.meta)).toEqual(['photo 0', 'photo 1', 'photo 2', 'gone']);
    expect(all.results[0]).toMatchObject({ status: 'downloaded', tags: ['t0', 'all'], last_error: null, width: 400 });
    expect(all.results[3]!.status).toBe('failed');
    expect(all.results[3]!.last_error).toMatch(/404/);

    expect(all).toMatchObject({ total: 4, n_items: 4, n_downloaded: 3, n_failed: 1 });
    const failed = await page(`/iris/image_sets/${imageSet}/records?status=failed`);
    expect(failed).toMatchObject({ total: 1, n_items: 4, n_downloaded: 3, n_failed: 1 });
    expect(failed.results.map((r) => r.meta)).toEqual(['gone']);
    const second = await page(`/iris/image_sets/${imageSet}/records?page=1&count=2`);
    expect(second).toMatchObject({ page: 1, count: 2, total: 4 });
    expect(second.results.map((r) => r.meta)).toEqual(['photo 2', 'gone']);
  });

  it('serves sized JPEG thumbnails with an ETag, and 304 when the browser has it', async () => {
    const { results } = await page(`/iris/image_sets/${imageSet}/records?status=downloaded&count=1`);
    const path = `/iris/image_sets/${imageSet}/records/${results[0]!.id}/thumbnail`;
    for (const size of [64, 256]) {
      const res = await get(`${path}?size=${size}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['cache-control']).toMatch(/^private/);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual(size === 64 ? [64, 48] : [256, 192]);
      const again = await get(`${path}?size=${size}`, 1, { 'if-none-match': String(res.headers.etag) });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
    const failedId = (await page(`/iris/image_sets/${imageSet}/records?status=failed`)).results[0]!.id;
    expect((await get(`/iris/image_sets/${imageSet}/records/${failedId}/thumbnail`)).statusCode).toBe(404);
  });

  it('never shows another account’s set, nor a set under another kind’s path', async () => {
    const { results } = await page(`/iris/image_sets/${imageSet}/records?count=1`);
    for (const url of [`/iris/image_sets/${imageSet}/records`, `/iris/image_sets/${imageSet}/records/${results[0]!.id}/thumbnail`]) {
      const res = await get(url, 2);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error_code: 2001 });
    }
    expect((await get(`/iris/training_sets/${imageSet}/records`)).statusCode).toBe(404);
    const product = await get(`/iris/product_sets/${productSet}/records`, 2);
    expect(product.json()).toMatchObject({ error_code: 1004 });
    // A record id of another set is not found through this set.
    const productRecord = (await settled('product_sets', productSet, 1)).results[0]!;
    expect(productRecord).toMatchObject({ product_id: 'sku-1', status: 'downloaded' });
    expect((await get(`/iris/image_sets/${imageSet}/records/${productRecord.id}/thumbnail`)).statusCode).toBe(404);
    expect((await get(`/iris/product_sets/${productSet}/records/${productRecord.id}/thumbnail?size=128`)).statusCode).toBe(200);
  });

  it('counts a training set’s records per label', async () => {
    await settled('training_sets', trainingSet, 4);
    const res = await get(`/iris/training_sets/${trainingSet}/labels`);
    expect(res.json().results).toEqual([
      { label: 'cat', total: 3, downloaded: 3, failed: 0 },
      { label: 'dog', total: 1, downloaded: 1, failed: 0 },
    ]);
  });

  it('refuses hostile parameters with 400/5001 before touching the database', async () => {
    const base = `/iris/image_sets/${imageSet}/records`;
    for (const url of [`${base}?count=0`, `${base}?count=101`, `${base}?page=-1`, `${base}?page=999999`, `${base}?status=deleted`, `${base}/abc/thumbnail`, `${base}/1/thumbnail?size=10000`, `${base}/${'9'.repeat(30)}/thumbnail`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ error_code: 5001 });
    }
    // A kind that is not a set kind fails the route's path schema (the edge answers 404/1108 before that).
    const otherKind = await get(`/iris/users/${imageSet}/records`);
    expect(otherKind.statusCode).toBe(400);
    expect(otherKind.json()).toMatchObject({ error_code: 5001 });
  });
});
