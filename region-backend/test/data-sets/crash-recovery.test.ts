/**
 * Durability: a backend process is killed (SIGKILL) in the middle of a 1,000-image bulk add and started
 * again; the downloads finish with correct counts and no duplicate records.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { FileSystemBlobStore } from '../../src/images/blob-store.js';
import { multipart } from '../support/test-app.js';
import { startCrashHarness, type CrashHarness } from '../support/crash-harness.js';
import { startImageServer, type ImageServer } from './image-server.js';

const IMAGES = 1000;

describe('downloads survive a killed backend', () => {
  let harness: CrashHarness;
  let images: ImageServer;

  beforeAll(async () => {
    harness = await startCrashHarness('crash');
    // Each image takes a while to serve, so the kill lands mid-way.
    images = await startImageServer({ delayMs: 40 });
  });
  afterAll(async () => {
    await harness?.close();
    await images?.close();
  });

  it('finishes a 1,000-image bulk add after SIGKILL and restart, without duplicates', async () => {
    const env = { IRIS_DOWNLOAD_CONCURRENCY: '8', IRIS_DOWNLOAD_LEASE_SECONDS: '4' };
    const first = await harness.startBackend(env);
    const setId = newResourceId();
    expect((await first.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, body: { name: 'crash' } })).status).toBe(200);
    const csv = Array.from({ length: IMAGES }, (_, i) => `${images.url(i, (['jpg', 'png', 'webp', 'gif'] as const)[i % 4])},m${i},t${i % 5}`).join('\n');
    const upload = multipart({ urls_to_add: { filename: 'urls.csv', content: csv } });
    const added = await first.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: upload.payload, headers: upload.headers });
    expect(added.status).toBe(200);
    expect(added.json()).toMatchObject({ n_items: IMAGES });

    const count = async (status: string) =>
      Number((await harness.pool.query('SELECT count(*) AS n FROM data_set_records WHERE set_id = $1 AND status = $2 AND deleted_at IS NULL', [setId, status])).rows[0].n);
    const until = Date.now() + 60_000;
    while ((await count('downloaded')) < 150) {
      if (Date.now() > until) throw new Error('downloads did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill('SIGKILL');
    const atKill = await count('downloaded');
    expect(atKill).toBeLessThan(IMAGES);
    const interrupted = await count('downloading');
    // Claimed by the killed process: their leases must expire before anyone takes them again.
    expect(interrupted).toBeGreaterThan(0);

    const second = await harness.startBackend(env);
    let set: { status: string; n_items: number; n_downloaded: number; n_failed: number } = { status: '', n_items: 0, n_downloaded: 0, n_failed: 0 };
    const deadline = Date.now() + 180_000;
    while (set.status !== 'downloaded') {
      if (Date.now() > deadline) throw new Error(`not finished after restart: ${JSON.stringify(set)}`);
      await new Promise((r) => setTimeout(r, 500));
      set = (await second.call({ method: 'GET', url: `/image_sets/_0000014/${setId}` })).json() as typeof set;
    }
    expect(set).toMatchObject({ n_items: IMAGES, n_downloaded: IMAGES, n_failed: 0, status: 'downloaded' });

    const rows = await harness.pool.query<Record<string, string | number>>(
      `SELECT count(*) AS n, count(DISTINCT url) AS urls, count(blob_key) AS blobs, count(*) FILTER (WHERE deleted_at IS NULL) AS live
       FROM data_set_records WHERE set_id = $1`,
      [setId],
    );
    const counts = Object.fromEntries(Object.entries(rows.rows[0]!).map(([k, v]) => [k, Number(v)]));
    expect(counts).toEqual({ n: IMAGES, urls: IMAGES, blobs: IMAGES, live: IMAGES });
    const cache = await harness.pool.query('SELECT count(*) AS n FROM url_blobs WHERE account_id = 1');
    expect(Number(cache.rows[0].n)).toBe(IMAGES);
    const store = new FileSystemBlobStore(path.join(harness.dataDir, 'regions', 'cn-east', 'blobs'));
    const keys = await harness.pool.query<{ blob_key: string }>('SELECT DISTINCT blob_key FROM data_set_records WHERE set_id = $1', [setId]);
    for (const { blob_key } of keys.rows) expect(await store.has(blob_key)).toBe(true);
    // Each URL was fetched at least once; the killed process's in-flight ones were fetched again, no others.
    const fetched = [...images.hits.entries()].filter(([p]) => p.startsWith('/img/'));
    expect(fetched).toHaveLength(IMAGES);
    const total = fetched.reduce((sum, [, n]) => sum + n, 0);
    expect(total).toBeLessThanOrEqual(IMAGES + interrupted + 8);
    await second.kill('SIGTERM');
  }, 300_000);
});
