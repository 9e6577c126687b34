import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { listDownloadedRecords, listRecordChanges } from '../../src/domains/data-sets/record-feed.js';
import { registerSetUsageCheck } from '../../src/domains/data-sets/set-usage.js';
import { multipart, startTestBackend, type TestBackend } from '../support/test-app.js';
import { fileUpload, TIME_FORMAT, waitFor } from './helpers.js';
import { startImageServer, type ImageServer } from './image-server.js';

const BASE = '/product_sets/_0000178';

describe('product sets', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer();
    backend = await startTestBackend({ IRIS_DOWNLOAD_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const create = async (name = 'products', accountId = 1) => {
    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: BASE, resourceId: id, accountId, payload: { name, description: 'd' } });
    expect(res.statusCode).toBe(200);
    return res.json() as { id: string; image_set_id: string };
  };
  const get = (id: string) => backend.call({ method: 'GET', url: `${BASE}/${id}` });
  const products = (id: string, query = '') => backend.call({ method: 'GET', url: `${BASE}/${id}/products${query}` });
  const settled = (id: string) =>
    waitFor(
      async () => (await get(id)).json(),
      (s) => s.status === 'downloaded',
    );

  it('creates with a hidden bound image set, lists, gets and modifies with POST and PUT', async () => {
    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: BASE, resourceId: id, payload: `name=${encodeURIComponent('商品集合名字超过十六个字的情况会被截断')}&description=x`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['created_at', 'creator_id', 'description', 'id', 'image_set_id', 'modified_at', 'name', 'request_id', 'status'].sort());
    expect(body).toMatchObject({ id, creator_id: 1, status: 'not-downloaded', description: 'x' });
    expect(body.name).toBe('商品集合名字超过十六个字的情况会');
    expect(body.created_at).toMatch(TIME_FORMAT);
    expect(JSON.parse(res.headers['x-iris-registry'] as string)).toEqual({ live: [id] });
    // The bound image set is internal: not among the image sets, not reachable as one.
    const imageSets = await backend.call({ method: 'GET', url: '/image_sets/_0000014' });
    expect(imageSets.json().results.map((r: { id: string }) => r.id)).not.toContain(body.image_set_id);
    expect((await backend.call({ method: 'GET', url: `/image_sets/_0000014/${body.image_set_id}` })).statusCode).toBe(404);

    const list = await backend.call({ method: 'GET', url: BASE });
    expect(list.json().results.find((r: { id: string }) => r.id === id)).toMatchObject({ image_set_id: body.image_set_id });
    expect(list.json().results[0].request_id).toBeUndefined();

    expect((await backend.call({ method: 'POST', url: `${BASE}/${id}`, payload: { name: 'renamed' } })).json()).toMatchObject({ name: 'renamed', description: 'x' });
    expect((await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { description: 'new' } })).json()).toMatchObject({ name: 'renamed', description: 'new' });
    const empty = await backend.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { name: ' ' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error_code: 1007 });
    const missingName = await backend.call({ method: 'POST', url: BASE, resourceId: newResourceId(), payload: { description: 'no name' } });
    expect(missingName.statusCode).toBe(400);
    expect(missingName.json()).toMatchObject({ error_code: 1007 });
    const unknown = await get(newResourceId());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error_code: 1004 });
  });

  it('adds one product (JSON or form), several images per product, upsert of attributes', async () => {
    const set = await create();
    const add = await backend.call({
      method: 'POST',
      url: `${BASE}/${set.id}/products`,
      payload: { product_id: 'p1', image_url: images.url(1), price: 12.5, keywords: 'red shoe', meta: 'first', tags: '鞋|红' },
    });
    expect(add.statusCode).toBe(200);
    expect(add.json()).toEqual({ ok: true, request_id: expect.any(String) });
    await backend.call({
      method: 'POST',
      url: `${BASE}/${set.id}/products`,
      payload: `product_id=p1&url=${encodeURIComponent(images.url(2, 'png'))}&price=10&keywords=red%20shoe%20sale&meta=second`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload: { product_id: 'p2', image_url: images.url(3) } });
    const done = await settled(set.id);
    expect(done.status).toBe('downloaded');

    const listed = (await products(set.id)).json();
    expect(listed).toMatchObject({ page: 0, count: 20, total: 2 });
    const p1 = listed.results.find((p: { product_id: string }) => p.product_id === 'p1');
    expect(p1).toMatchObject({ price: '10', keywords: 'red shoe sale', meta: 'second', tags: '', url: images.url(1) });
    expect(p1.images).toEqual([
      { url: images.url(1), status: 'downloaded' },
      { url: images.url(2, 'png'), status: 'downloaded' },
    ]);
    // Every image record carries the product attributes (what search indexes).
    const records = await listDownloadedRecords(backend.app.db.pool, set.image_set_id);
    expect(records.filter((r) => r.product_id === 'p1').map((r) => r.meta)).toEqual(['second', 'second']);

    for (const payload of [{ image_url: images.url(1) }, { product_id: 'p3' }, { product_id: 'p3', image_url: `${images.base}/${'x'.repeat(520)}` }]) {
      const bad = await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error_code: 5001 });
    }
    const unknown = await backend.call({ method: 'POST', url: `${BASE}/${newResourceId()}/products`, payload: { product_id: 'a', image_url: images.url(1) } });
    expect(unknown.json()).toMatchObject({ error_code: 1004 });
  });

  it('adds and updates many from JSON lines, all or nothing, and deletes by file', async () => {
    const set = await create();
    const lines = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({ product_id: `sku-${i % 10}`, image_url: images.url(200 + i, i % 2 ? 'png' : 'jpg'), price: i % 3 ? String(i) : i, keywords: ['k', String(i)], tags: 'a|b' }),
    );
    const upload = fileUpload('products_to_add', `\uFEFF${lines.join('\r\n')}\n\n`, 'products.txt');
    const res = await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload: upload.payload, headers: upload.headers });
    expect(res.json()).toMatchObject({ ok: true });
    const page = (await products(set.id, '?page=1&count=4')).json();
    expect(page).toMatchObject({ page: 1, count: 4, total: 10 });
    expect(page.results.map((p: { product_id: string }) => p.product_id)).toEqual(['sku-4', 'sku-5', 'sku-6', 'sku-7']);
    // Upsert: the last line of a product wins for its attributes; its three images are all kept.
    expect(page.results[0]).toMatchObject({ price: '24', keywords: 'k 24', tags: 'a|b' });
    expect(page.results[0].images).toHaveLength(3);

    const bad = fileUpload('products_to_add', [JSON.stringify({ product_id: 'new', image_url: images.url(1) }), '{"product_id": "x", "image_url":'].join('\n'));
    const refused = await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload: bad.payload, headers: bad.headers });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error_code: 5001 });
    expect(refused.json().message).toMatch(/line 2/);
    expect((await products(set.id)).json().total).toBe(10);

    const del = fileUpload('products_to_delete', ['{"product_id": "sku-0", "image_url": "ignored"}', '{"product_id": "sku-1"}'].join('\n'));
    expect((await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload: del.payload, headers: del.headers })).json()).toMatchObject({ ok: true });
    expect((await products(set.id)).json().total).toBe(8);
    await settled(set.id);
  });

  it('gets and deletes products by ids (JSON body, query, form, multipart)', async () => {
    const set = await create();
    for (const pid of ['a', 'b', 'c', 'd', 'e']) {
      await backend.call({ method: 'POST', url: `${BASE}/${set.id}/products`, payload: { product_id: pid, image_url: images.url(300 + pid.charCodeAt(0)) } });
    }
    const byJson = await backend.call({ method: 'GET', url: `${BASE}/${set.id}/products`, payload: { ids: ['b', 'zz', 'a'] } });
    expect(byJson.json().results.map((p: { product_id: string }) => p.product_id)).toEqual(['a', 'b']);
    const byQuery = await products(set.id, '?ids=c,d');
    expect(byQuery.json().results.map((p: { product_id: string }) => p.product_id)).toEqual(['c', 'd']);

    const viaJson = await backend.call({ method: 'DELETE', url: `${BASE}/${set.id}/products`, payload: { ids: ['a'] } });
    expect(viaJson.statusCode).toBe(204);
    expect(viaJson.body).toBe('');
    await backend.call({ method: 'DELETE', url: `${BASE}/${set.id}/products?ids=b` });
    await backend.call({ method: 'DELETE', url: `${BASE}/${set.id}/products`, payload: 'ids=c', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const mp = multipart({ ids: '["d"]' });
    await backend.call({ method: 'DELETE', url: `${BASE}/${set.id}/products`, payload: mp.payload, headers: mp.headers });
    const left = (await products(set.id)).json();
    expect(left.results.map((p: { product_id: string }) => p.product_id)).toEqual(['e']);
    const changes = await listRecordChanges(backend.app.db.pool, set.image_set_id, 0, 100);
    expect(changes.filter((c) => c.deleted).map((c) => c.product_id).sort()).toEqual(['a', 'b', 'c', 'd']);
    const noIds = await backend.call({ method: 'DELETE', url: `${BASE}/${set.id}/products` });
    expect(noIds.json()).toMatchObject({ error_code: 5001 });
  });

  it('deletes one (204), refuses while in use (403/3001), and deletes all of an account', async () => {
    const first = await create('first', 5);
    const second = await create('second', 5);
    const kept = await create('other account', 6);
    const inUse = new Set([first.image_set_id]);
    const unregister = registerSetUsageCheck(async (id) => inUse.has(id));
    try {
      const refused = await backend.call({ method: 'DELETE', url: `${BASE}/${first.id}`, accountId: 5 });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error_code: 3001 });
      const refusedAll = await backend.call({ method: 'DELETE', url: BASE, accountId: 5 });
      expect(refusedAll.statusCode).toBe(403);
    } finally {
      unregister();
    }
    const one = await backend.call({ method: 'DELETE', url: `${BASE}/${first.id}`, accountId: 5 });
    expect(one.statusCode).toBe(204);
    expect(JSON.parse(one.headers['x-iris-registry'] as string)).toEqual({ deleted: [first.id] });
    const bound = await backend.app.db.pool.query('SELECT 1 FROM data_sets WHERE id = $1', [first.image_set_id]);
    expect(bound.rowCount).toBe(0);
    const all = await backend.call({ method: 'DELETE', url: BASE, accountId: 5 });
    expect(all.statusCode).toBe(204);
    expect(JSON.parse(all.headers['x-iris-registry'] as string)).toEqual({ deleted: [second.id] });
    expect((await backend.call({ method: 'GET', url: BASE, accountId: 5 })).json().results).toEqual([]);
    expect((await backend.call({ method: 'GET', url: `${BASE}/${kept.id}`, accountId: 6 })).statusCode).toBe(200);
    const gone = await backend.call({ method: 'DELETE', url: `${BASE}/${first.id}`, accountId: 5 });
    expect(gone.json()).toMatchObject({ error_code: 1004 });
  });
});
