/**
 * Blob garbage collection on a real backend and PostgreSQL: images are freed through the real delete paths
 * (records by URL, image sets, product sets) only once nothing refers to them, the stored bytes fall with
 * them, a re-upload racing the collector never loses its file, and queued downloads respect the account's
 * stored-bytes quota.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, newResourceId } from '@iris/shared';
import { BlobGoneError } from '../../src/domains/blob-gc/blob-refs.repo.js';
import { BlobCollector, PAUSE_LEASE, type CollectStep } from '../../src/domains/blob-gc/blob-collector.js';
import { recordInput, upsertDownloadedRecord, withLockedSet } from '../../src/domains/data-sets/record.repo.js';
import type { FileSystemBlobStore } from '../../src/images/blob-store.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { createImageSet, fileUpload, waitFor } from '../data-sets/helpers.js';
import { startImageServer, type ImageServer } from '../data-sets/image-server.js';

const BASE = '/image_sets/_0000014';

describe('blob garbage collection', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer();
    // Grace 0 and no periodic run: the tests run the collector themselves, at the moments they choose.
    // One download at a time: the stored-bytes test knows which image comes first.
    backend = await startTestBackend({ IRIS_BLOB_GC_GRACE_SECONDS: '0', IRIS_BLOB_GC_INTERVAL_SECONDS: '86400', IRIS_DOWNLOAD_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const pool = () => backend.app.db.pool;
  const store = () => backend.app.blobs as FileSystemBlobStore;
  const fileOf = (key: string) => existsSync(store().pathOf(key));
  const collect = () => backend.app.blobCollector.collectDue();
  const storedBytes = async (accountId: number) => Number((await pool().query('SELECT coalesce(sum(bytes), 0) AS b FROM url_blobs WHERE account_id = $1', [accountId])).rows[0].b);
  const registered = async (key: string) => (await pool().query('SELECT state FROM stored_blobs WHERE blob_key = $1', [key])).rows[0]?.state as string | undefined;
  const keyOf = async (setId: string, url: string) =>
    (await pool().query<{ blob_key: string }>('SELECT blob_key FROM data_set_records WHERE set_id = $1 AND url = $2 AND deleted_at IS NULL', [setId, url])).rows[0]!.blob_key;
  const settled = (setId: string) =>
    waitFor(
      async () => Number((await pool().query("SELECT count(*) AS n FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL AND status IN ('pending', 'downloading')", [setId])).rows[0].n),
      (n) => n === 0,
    );
  const addUrls = async (accountId: number, setId: string, urls: string[]) => {
    const upload = fileUpload('urls_to_add', urls.join('\n'));
    const res = await backend.call({ method: 'POST', url: `${BASE}/${setId}`, accountId, payload: upload.payload, headers: upload.headers });
    expect(res.statusCode).toBe(200);
    await settled(setId);
  };

  it('frees images through the real delete paths once nothing refers to them, and the stored bytes fall', async () => {
    const account = 61;
    const [u1, u2, u3] = [images.url(501), images.url(502), images.url(503)];
    const u1Copy = `${u1}?same-bytes`; // another URL serving the same image: one blob, two cache entries
    const first = await createImageSet(backend, 'first', account);
    const second = await createImageSet(backend, 'second', account);
    await addUrls(account, first, [u1, u2, u3]);
    await addUrls(account, second, [u3, u1Copy]);
    const [k1, k2, k3] = [await keyOf(first, u1), await keyOf(first, u2), await keyOf(first, u3)];
    expect(await keyOf(second, u1Copy)).toBe(k1);
    for (const key of [k1, k2, k3]) expect([fileOf(key), await registered(key)]).toEqual([true, 'live']);
    const size = async (key: string) => Number((await pool().query('SELECT bytes FROM stored_blobs WHERE blob_key = $1', [key])).rows[0].bytes);
    const [b1, b2, b3] = [await size(k1), await size(k2), await size(k3)];
    expect(await storedBytes(account)).toBe(2 * b1 + b2 + b3);

    // Deleting records by URL: u2's image goes; u1's stays (the second set holds the same bytes).
    const del = fileUpload('urls_to_delete', [u1, u2].join('\n'));
    expect((await backend.call({ method: 'POST', url: `${BASE}/${first}`, accountId: account, payload: del.payload, headers: del.headers })).statusCode).toBe(200);
    const run = await collect();
    expect(run.deleted).toBe(1);
    expect(run.bytes).toBe(b2);
    expect([fileOf(k2), await registered(k2)]).toEqual([false, undefined]);
    expect([fileOf(k1), fileOf(k3)]).toEqual([true, true]);
    expect(await storedBytes(account)).toBe(b1 + b3);

    // Deleting the first set: u3's image is still in the second set.
    expect((await backend.call({ method: 'DELETE', url: `${BASE}/${first}`, accountId: account })).statusCode).toBe(204);
    expect((await collect()).deleted).toBe(0);
    expect([fileOf(k1), fileOf(k3)]).toEqual([true, true]);

    // A product set holding u1's bytes too, then the second set goes: only u3's image is freed.
    const productSet = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: productSet, accountId: account, payload: { name: 'p' } })).statusCode).toBe(200);
    const imageSetOfProducts = (await backend.call({ method: 'GET', url: `/product_sets/_0000178/${productSet}`, accountId: account })).json().image_set_id as string;
    expect((await backend.call({ method: 'POST', url: `/product_sets/_0000178/${productSet}/products`, accountId: account, payload: { product_id: 'sku', image_url: `${u1}?product` } })).statusCode).toBe(200);
    await settled(imageSetOfProducts);
    expect(await keyOf(imageSetOfProducts, `${u1}?product`)).toBe(k1);
    expect((await backend.call({ method: 'DELETE', url: `${BASE}/${second}`, accountId: account })).statusCode).toBe(204);
    expect((await collect()).deleted).toBe(1);
    expect([fileOf(k3), await registered(k3), fileOf(k1)]).toEqual([false, undefined, true]);
    expect(await storedBytes(account)).toBe(b1);

    // The product set goes: nothing of the account is left.
    expect((await backend.call({ method: 'DELETE', url: `/product_sets/_0000178/${productSet}`, accountId: account })).statusCode).toBe(204);
    expect((await collect()).deleted).toBe(1);
    expect([fileOf(k1), await registered(k1)]).toEqual([false, undefined]);
    expect(await storedBytes(account)).toBe(0);
    expect(Number((await pool().query('SELECT count(*) AS n FROM blob_gc_queue')).rows[0].n)).toBe(0);
  });

  it('keeps images another account still uses, and re-downloads a URL whose image was freed', async () => {
    const url = images.url(520);
    const mine = await createImageSet(backend, 'mine', 62);
    const theirs = await createImageSet(backend, 'theirs', 63);
    await addUrls(62, mine, [url]);
    await addUrls(63, theirs, [url]);
    const key = await keyOf(mine, url);
    expect((await backend.call({ method: 'DELETE', url: `${BASE}/${mine}`, accountId: 62 })).statusCode).toBe(204);
    await collect();
    expect([fileOf(key), await storedBytes(62), (await storedBytes(63)) > 0]).toEqual([true, 0, true]);
    expect((await backend.call({ method: 'DELETE', url: `${BASE}/${theirs}`, accountId: 63 })).statusCode).toBe(204);
    await collect();
    expect(fileOf(key)).toBe(false);
    const hits = images.hits.get(new URL(url).pathname) ?? 0;
    const again = await createImageSet(backend, 'again', 62);
    await addUrls(62, again, [url]);
    expect(images.hits.get(new URL(url).pathname)).toBe(hits + 1);
    expect([await keyOf(again, url), fileOf(key), await registered(key)]).toEqual([key, true, 'live']);
  });

  it('a re-upload of the same content racing the collector never loses its file', async () => {
    const account = 64;
    const setId = await createImageSet(backend, 'race', account);
    const bytes = (i: number) => Buffer.from(`race content ${i} ${newResourceId(8)}`);
    const record = (url: string, blobKey: string, size: number) =>
      withLockedSet(pool(), setId, {}, (tx) => upsertDownloadedRecord(tx, account, recordInput({ url }), { blobKey, width: 1, height: 1, bytes: size }));
    const reference = async (i: number, data: Buffer): Promise<string> => {
      // What adding one image does: store the bytes, then record them (again when collected meanwhile).
      for (;;) {
        const blobKey = await backend.app.blobWriter.put(data);
        try {
          await record(`https://example.com/race/${i}`, blobKey, data.length);
          return blobKey;
        } catch (err) {
          if (!(err instanceof BlobGoneError)) throw err;
        }
      }
    };
    // The writer arrives at a chosen step of the collector: after the blob is marked for deletion (it
    // revives the blob), and while the file is being unlinked (it waits, then writes the file again).
    for (const at of ['marked', 'unlinked'] as CollectStep[]) {
      const data = bytes(at.length);
      const key = await backend.app.blobWriter.put(data);
      let racing: Promise<string> | undefined;
      let refusedWhileDeleting = false;
      const collector = new BlobCollector(pool(), store(), {
        graceSeconds: 0,
        batch: 10,
        onStep: async (step) => {
          if (step !== at) return;
          if (at === 'marked') {
            await expect(record('https://example.com/refused', key, 1)).rejects.toBeInstanceOf(BlobGoneError);
            refusedWhileDeleting = true;
          }
          racing = reference(at === 'marked' ? 1000 : 1001, data);
          if (at === 'marked') await racing;
        },
      });
      const outcome = await collector.collect(key);
      expect(await racing).toBe(key);
      expect(outcome.deleted).toBe(at === 'unlinked');
      expect(refusedWhileDeleting).toBe(at === 'marked');
      expect([fileOf(key), await registered(key)]).toEqual([true, 'live']);
    }

    // Free-running: collectors with random pauses between their steps against writers of the same contents.
    const jitter = () => new Promise<void>((r) => setTimeout(r, Math.random() * 4));
    const collector = new BlobCollector(pool(), store(), { graceSeconds: 0, batch: 10, onStep: jitter });
    for (let i = 0; i < 40; i++) {
      const data = bytes(i);
      const key = await backend.app.blobWriter.put(data);
      const [, referenced] = await Promise.all([(async () => (await jitter(), collector.collect(key)))(), (async () => (await jitter(), reference(i, data)))()]);
      expect(referenced).toBe(key);
      expect([fileOf(key), await registered(key)]).toEqual([true, 'live']);
      expect((await collector.collect(key)).deleted).toBe(false); // referenced: kept
    }
  });

  it('deletes nothing while a backup holds the pause lease, and collects once it is given back', async () => {
    const key = await backend.app.blobWriter.put(randomBytes(2048));
    await pool().query(`INSERT INTO leases (name, holder, expires_at) VALUES ($1, 'backup', now() + interval '1 hour')`, [PAUSE_LEASE]);
    try {
      expect((await new BlobCollector(pool(), store(), { graceSeconds: 0, batch: 10 }).collect(key)).deleted).toBe(false);
      expect((await collect()).deleted).toBe(0);
      expect([fileOf(key), await registered(key)]).toEqual([true, 'live']);
    } finally {
      await pool().query('DELETE FROM leases WHERE name = $1', [PAUSE_LEASE]);
    }
    expect((await new BlobCollector(pool(), store(), { graceSeconds: 0, batch: 10 }).collect(key)).deleted).toBe(true);
    expect(fileOf(key)).toBe(false);
  });

  it('queued downloads check the stored-bytes quota before storing and fail the record with its code', async () => {
    const account = 65;
    const setId = await createImageSet(backend, 'quota', account);
    const urls = [images.url(530), images.url(531), images.url(532)];
    const upload = fileUpload('urls_to_add', urls.join('\n'));
    // The add is allowed (nothing stored yet); the first image stored reaches the 100-byte quota.
    const quotas = { ...DEFAULT_QUOTAS, storedBytes: 100 };
    const res = await backend.call({ method: 'POST', url: `${BASE}/${setId}`, accountId: account, quotas, payload: upload.payload, headers: upload.headers });
    expect(res.statusCode).toBe(200);
    await settled(setId);
    const records = await pool().query<{ url: string; status: string; last_error: string | null; blob_key: string | null }>(
      'SELECT url, status, last_error, blob_key FROM data_set_records WHERE set_id = $1 ORDER BY id',
      [setId],
    );
    expect(records.rows.map((r) => r.status)).toEqual(['downloaded', 'failed', 'failed']);
    for (const row of records.rows.slice(1)) {
      expect(row.blob_key).toBeNull();
      expect(row.last_error).toMatch(/stored-bytes quota \(403\/3010\).*100 bytes/);
    }
    const stored = await storedBytes(account);
    expect(stored).toBe(Number((await pool().query('SELECT bytes FROM stored_blobs WHERE blob_key = $1', [records.rows[0]!.blob_key])).rows[0].bytes));
    // The refused images were not stored for anyone.
    const refusedKeys = await pool().query("SELECT count(*) AS n FROM url_blobs WHERE url = ANY($1::text[])", [urls.slice(1)]);
    expect(Number(refusedKeys.rows[0].n)).toBe(0);

    // A larger quota sent with the next add is what later downloads check.
    const more = fileUpload('urls_to_add', urls.slice(1).join('\n'));
    const other = await createImageSet(backend, 'quota raised', account);
    const raised = { ...DEFAULT_QUOTAS, storedBytes: 10_000_000 };
    expect((await backend.call({ method: 'POST', url: `${BASE}/${other}`, accountId: account, quotas: raised, payload: more.payload, headers: more.headers })).statusCode).toBe(200);
    await settled(other);
    const after = await pool().query<{ status: string }>('SELECT status FROM data_set_records WHERE set_id = $1', [other]);
    expect(after.rows.map((r) => r.status)).toEqual(['downloaded', 'downloaded']);
  });
});
