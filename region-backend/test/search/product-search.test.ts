/** Search services on a product set and `/product_search`: product fields, keywords, price bounds, paging. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { multipart } from '../support/test-app.js';
import type { ImageServer } from '../support/image-server.js';
import { searchEnvironment, searchImages, searchUpload, serveImages, startSearchBackend, waitIndexed, type SearchBackend, type SearchResponse } from './search-fixtures.js';

const SETS = '/product_sets/_0000178';

interface Product {
  product_id: string;
  image: number;
  price: string;
  keywords: string;
}

describe('product search', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let backend: SearchBackend;
  let server: ImageServer;
  let images: Buffer[];
  let productSet: { id: string; image_set_id: string };
  let serviceId: string;
  // Twelve products; p0 has a second image (image 12).
  const products: Product[] = Array.from({ length: 12 }, (_, n) => ({
    product_id: `p${n}`,
    image: n,
    price: String(10 * (n + 1)),
    keywords: `${n % 2 ? 'red' : 'blue'} ${n % 3 ? 'shoe' : 'bag'} item${n}`,
  }));
  const urlOf = (n: number) => server.url(`/img/${n}.jpg`);

  beforeAll(async () => {
    images = await searchImages();
    server = await serveImages(images);
    env = await searchEnvironment();
    backend = await startSearchBackend({ ...env, env: { IRIS_SEARCH_POLL_MS: '300' } });
    const id = newResourceId();
    const created = await backend.call({ method: 'POST', url: SETS, resourceId: id, payload: { name: 'shop', description: 'd' } });
    expect(created.statusCode).toBe(200);
    productSet = created.json();
    const lines = products.map((p) => JSON.stringify({ product_id: p.product_id, image_url: urlOf(p.image), price: p.price, keywords: p.keywords, meta: `meta ${p.product_id}`, tags: `t${p.image % 2}` }));
    lines.push(JSON.stringify({ product_id: 'p0', image_url: urlOf(12), price: '10', keywords: products[0]!.keywords, meta: 'meta p0', tags: 't0' }));
    const file = multipart({ products_to_add: { filename: 'p.jsonl', content: lines.join('\n'), contentType: 'application/json' } });
    expect((await backend.call({ method: 'POST', url: `${SETS}/${productSet.id}/products`, payload: file.payload, headers: file.headers })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await env?.dispose();
  });

  const search = async (image: number, fields: Record<string, string>) => {
    const res = await searchUpload(backend, serviceId, images[image]!, fields, 'product_search');
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as SearchResponse & { results: Required<SearchResponse['results'][number]>[] };
  };

  it('creates a service on the product set (type, bound image set, 32-character names, scenario required)', async () => {
    const bad = await backend.call({ method: 'POST', url: `${SETS}/${productSet.id}/services`, resourceId: newResourceId(), payload: { name: 'x', scenario: 'fashion_v9' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error_code: 2003 });
    const none = await backend.call({ method: 'POST', url: `${SETS}/${productSet.id}/services`, resourceId: newResourceId(), payload: { name: 'x' } });
    expect(none.json()).toMatchObject({ error_code: 2003 });
    const missing = await backend.call({ method: 'POST', url: `${SETS}/${newResourceId()}/services`, resourceId: newResourceId(), payload: { name: 'x', scenario: 'fashion' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error_code: 1004 });

    const id = newResourceId();
    const res = await backend.call({ method: 'POST', url: `${SETS}/${productSet.id}/services`, resourceId: id, payload: { name: 'a'.repeat(40), scenario: 'fashion_v3' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      name: 'a'.repeat(32),
      scenario: 'fashion_v3',
      image_set_id: productSet.image_set_id,
      product_set_id: productSet.id,
      type: 1,
      n_indexed: 0,
      indexed_ratio: 0,
      status: 'running',
    });
    serviceId = id;
    const indexed = await waitIndexed(backend, id, 13);
    expect(indexed.indexed_ratio).toBe(1);
  });

  it('returns products with their fields, one result per product', async () => {
    const body = await search(5, { count: '5' });
    expect(body.results).toHaveLength(5);
    expect(body.results[0]).toEqual({
      product_id: 'p5',
      price: '60',
      keywords: products[5]!.keywords,
      url: urlOf(5),
      metadata: 'meta p5',
      score: expect.any(Number),
      tags: 't1',
      // The very image is verified by keypoint matching: the Iris extension says where it matched.
      matched_region: { query: expect.any(Array), result: expect.any(Array), inliers: expect.any(Number) },
    });
    expect(body.results[0]!.score).toBeGreaterThan(0.95);
    expect(body.ds).toBe(productSet.id);
    // p0 has two images: querying with the second finds p0 once.
    const all = await search(12, { count: '20' });
    expect(all.results[0]!.product_id).toBe('p0');
    expect(all.results[0]!.url).toBe(urlOf(12));
    expect(all.results.filter((r) => r.product_id === 'p0')).toHaveLength(1);
    expect(all.results).toHaveLength(12);
  });

  it('filters by keywords and price bounds during the search', async () => {
    const red = await search(5, { keywords: 'shoe red', count: '20' });
    const expected = products.filter((p) => p.keywords.includes('red') && p.keywords.includes('shoe')).map((p) => p.product_id);
    expect(red.results.map((r) => r.product_id).sort()).toEqual(expected.sort());
    expect(red.results[0]!.product_id).toBe('p5');
    // The query's own product is excluded when its keywords do not match; results still come back.
    const bags = await search(5, { keywords: 'bag' });
    expect(bags.results.map((r) => r.product_id)).not.toContain('p5');
    expect(bags.results.length).toBeGreaterThan(0);
    for (const r of bags.results) expect(r.keywords.split(' ')).toContain('bag');

    // min is exclusive, max inclusive: 30 < price ≤ 80 → p3..p7.
    const priced = await search(5, { min_price: '30', max_price: '80', count: '20' });
    expect(priced.results.map((r) => r.product_id).sort()).toEqual(['p3', 'p4', 'p5', 'p6', 'p7']);
    const combined = await search(1, { keywords: 'red', max_price: '40', tags: 't1' });
    expect(combined.results.map((r) => r.product_id).sort()).toEqual(['p1', 'p3']);
    const bad = await searchUpload(backend, serviceId, images[1]!, { min_price: 'cheap' }, 'product_search');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error_code: 5001 });
  });

  it('pages with offset page × count', async () => {
    const whole = await search(3, { count: '6' });
    const first = await search(3, { count: '3', page: '0' });
    const second = await search(3, { count: '3', page: '1' });
    expect(first.results.map((r) => r.product_id)).toEqual(whole.results.slice(0, 3).map((r) => r.product_id));
    expect(second.results.map((r) => r.product_id)).toEqual(whole.results.slice(3, 6).map((r) => r.product_id));
    expect((await search(3, { count: '5', page: '2' })).results).toHaveLength(2); // 12 products
    expect((await search(3, { count: '5', page: '3' })).results).toEqual([]);
  });

  it('lists, gets, renames and deletes product-set services; the set cannot be deleted meanwhile', async () => {
    const list = await backend.call({ method: 'GET', url: `${SETS}/services` });
    expect(list.statusCode).toBe(200);
    expect(list.json().results.map((s: { id: string }) => s.id)).toEqual([serviceId]);
    expect((await backend.call({ method: 'GET', url: '/customer_services/_0000172' })).json().results.map((s: { id: string }) => s.id)).toContain(serviceId);
    expect((await backend.call({ method: 'GET', url: `${SETS}/services/${serviceId}` })).json()).toMatchObject({ id: serviceId, type: 1 });
    const renamed = await backend.call({ method: 'PATCH', url: `${SETS}/services/${serviceId}`, payload: { name: 'renamed' } });
    expect(renamed.json()).toMatchObject({ id: serviceId, name: 'renamed' });

    const refused = await backend.call({ method: 'DELETE', url: `${SETS}/${productSet.id}` });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error_code: 3001 });

    // An image-set service is not a product-set service.
    const imageSet = newResourceId();
    await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'i' } });
    const other = newResourceId();
    await backend.call({ method: 'POST', url: `/image_sets/_0000014/${imageSet}/services`, resourceId: other, payload: { name: 'i', scenario: 'general' } });
    expect((await backend.call({ method: 'GET', url: `${SETS}/services/${other}` })).json()).toMatchObject({ error_code: 2002 });
    expect((await backend.call({ method: 'DELETE', url: `${SETS}/services/${other}` })).statusCode).toBe(404);

    const removed = await backend.call({ method: 'DELETE', url: `${SETS}/services/${serviceId}` });
    expect(removed.statusCode).toBe(204);
    expect((await backend.call({ method: 'GET', url: `${SETS}/services/${serviceId}` })).json()).toMatchObject({ error_code: 2002 });
    expect((await backend.call({ method: 'DELETE', url: `${SETS}/${productSet.id}` })).statusCode).toBe(204);
  });
});
