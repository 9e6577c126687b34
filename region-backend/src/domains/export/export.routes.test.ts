/**
 * The record export on a real backend (real PostgreSQL, real HTTP on loopback): every record in id order as
 * JSON lines across many keyset pages (a small page size stands in for a large set), the status filter,
 * the account's scope, hostile ids, and a client that goes away stopping the reads.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId, SetRecord, signInternal, type ForwardContext } from '@iris/shared';
import { startTestBackend, TEST_SECRET, type TestBackend } from '../../../test/support/test-app.js';
import { waitUntil } from '../../../test/support/wait-for.js';

const PAGE_ROWS = 7;

describe('record export as JSON lines', () => {
  let backend: TestBackend;
  const imageSet = newResourceId();
  const bigSet = newResourceId();
  const productSet = newResourceId();
  const get = (url: string, accountId = 1) => backend.call({ method: 'GET', url, accountId });
  const lines = (body: string) => body.split('\n').filter((l) => l !== '').map((l) => SetRecord.parse(JSON.parse(l)));
  const sql = (text: string, values: unknown[]) => backend.app.db.pool.query(text, values);

  beforeAll(async () => {
    backend = await startTestBackend({ IRIS_EXPORT_PAGE_ROWS: String(PAGE_ROWS) }, { workers: false });
    for (const [url, id, name] of [['/image_sets/_0000014', imageSet, 'export'], ['/image_sets/_0000014', bigSet, 'big'], ['/product_sets/_0000178', productSet, 'catalogue']] as const) {
      expect((await backend.call({ method: 'POST', url, resourceId: id, payload: { name } })).statusCode).toBe(200);
    }
    // 45 records (6 full pages and a part): every 5th failed with its reason, one deleted.
    await sql(
      `INSERT INTO data_set_records (set_id, url, meta, status, last_error)
       SELECT $1, 'http://pictures.test/' || g || '.jpg', 'm' || g, CASE WHEN g % 5 = 0 THEN 'failed' ELSE 'pending' END,
              CASE WHEN g % 5 = 0 THEN 'HTTP 404 for picture ' || g END
       FROM generate_series(1, 45) g`,
      [imageSet],
    );
    await sql(`UPDATE data_set_records SET deleted_at = now() WHERE set_id = $1 AND meta = 'm2'`, [imageSet]);
    const { rows } = await sql('SELECT image_set_id FROM product_sets WHERE id = $1', [productSet]);
    await sql(`INSERT INTO data_set_records (set_id, url, product_id, price) VALUES ($1, 'http://pictures.test/p.jpg', 'sku-9', '12.5')`, [rows[0].image_set_id]);
    // Enough bytes that a client going away leaves most of them unread (beyond any socket buffer).
    await sql(`INSERT INTO data_set_records (set_id, url, meta) SELECT $1, 'http://pictures.test/big/' || g || '.jpg', repeat('x', 500) FROM generate_series(1, 30000) g`, [bigSet]);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('streams every live record in id order across keyset pages, with status and failure reason', async () => {
    const res = await get(`/iris/image_sets/${imageSet}/export`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const records = lines(res.body);
    expect(records).toHaveLength(44);
    expect(records.map((r) => r.meta)).toEqual(Array.from({ length: 45 }, (_, i) => `m${i + 1}`).filter((m) => m !== 'm2'));
    const ids = records.map((r) => BigInt(r.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect(records[3]).toMatchObject({ meta: 'm5', status: 'failed', last_error: 'HTTP 404 for picture 5' });
    expect(records[0]).toMatchObject({ status: 'pending', last_error: null });

    const failed = lines((await get(`/iris/image_sets/${imageSet}/export?status=failed`)).body);
    expect(failed.map((r) => r.meta)).toEqual(['m5', 'm10', 'm15', 'm20', 'm25', 'm30', 'm35', 'm40', 'm45']);
    // A filter no record matches answers no lines at all.
    expect((await get(`/iris/image_sets/${imageSet}/export?status=downloaded`)).body).toBe('');

    const products = lines((await get(`/iris/product_sets/${productSet}/export`)).body);
    expect(products).toEqual([expect.objectContaining({ product_id: 'sku-9', price: '12.5', url: 'http://pictures.test/p.jpg' })]);
  });

  it('never exports another account’s set, and refuses hostile paths and filters', async () => {
    const other = await get(`/iris/image_sets/${imageSet}/export`, 2);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ error_code: 2001 });
    expect((await get(`/iris/product_sets/${productSet}/export`, 2)).json()).toMatchObject({ error_code: 1004 });
    expect((await get(`/iris/product_sets/${imageSet}/export`)).statusCode).toBe(404);
    expect((await get(`/iris/image_sets/${imageSet}/export?status=everything`)).json()).toMatchObject({ error_code: 5001 });
    await fc.assert(
      // '.' and '..' are dot segments, which every URL parser (the edge's among them) removes before a path is
      // signed and routed: as ids they cannot reach the backend.
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }).filter((id) => id !== '.' && id !== '..'), fc.constantFrom('image_sets', 'product_sets', 'training_sets', 'sets'), async (id, kind) => {
        const res = await get(`/iris/${kind}/${encodeURIComponent(id)}/export`);
        expect([400, 404]).toContain(res.statusCode);
        expect(res.json()).toHaveProperty('error_code');
      }),
      { numRuns: 60 },
    );
  });

  it('stops reading pages when the client goes away', async () => {
    const address = await backend.app.listen({ port: 0, host: '127.0.0.1' }).then(() => backend.app.server.address() as AddressInfo);
    const path = `/iris/image_sets/${bigSet}/export`;
    const context: ForwardContext = { requestId: newResourceId(16), lang: 'en', quotas: { ...DEFAULT_QUOTAS } };
    const headers = await signInternal(TEST_SECRET, { method: 'GET', pathWithQuery: path, accountId: 1, context, body: undefined });
    const readBefore = (await backend.app.metrics.exportRecords.get()).values[0]?.value ?? 0;
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const req = http.get({ host: address.address, port: address.port, path, headers }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.length);
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    expect(firstBytes).toBeGreaterThan(0);
    await waitUntil(async () => (await backend.app.metrics.exportsActive.get()).values[0]?.value ?? 0, (active) => active === 0, 30_000);
    const read = ((await backend.app.metrics.exportRecords.get()).values[0]?.value ?? 0) - readBefore;
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(30_000 / 2);
  });
});
