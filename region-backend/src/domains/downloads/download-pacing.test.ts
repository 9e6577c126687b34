/**
 * A set that a search service indexes downloads at the pace the kept pixels are taken: with a pixel table that
 * holds two pictures, every picture's pixels are still there when its first pass comes for them. A set nobody
 * indexes is not held back, and the table keeps only what fits. Real PostgreSQL, a loopback image server, the
 * real downloader with its decoder threads and blob store; the test takes the pixels as first passes do.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { waitUntil } from '../../../test/support/wait-for.js';
import { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { FileSystemBlobStore } from '../../images/blob-store.js';
import { loadImageConfig } from '../../images/image-config.js';
import { RecentPixels } from '../../images/recent-pixels.js';
import type { RgbImage } from '../../images/rgb-image.js';
import { BlobWriter } from '../blob-gc/blob-writer.js';
import { loadDownloadConfig } from './download-config.js';
import { DownloadService } from './download.service.js';
import { imageDownloader } from './image-download.js';

const WIDTH = 320;
const HEIGHT = 240;
const PICTURE_BYTES = WIDTH * HEIGHT * 3;
const PICTURES = 8;

describe('downloads paced by the pixel table', () => {
  const db = testDatabasePool(4);
  let server: ImageServer;
  let dir: string;
  let decoder: ImageDecoderPool;
  let table: RecentPixels;
  let service: DownloadService;
  const indexedSets = new Set<string>();

  beforeAll(async () => {
    server = await startImageServer();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iris-pacing-'));
    const config = loadImageConfig({}, dir, true);
    decoder = new ImageDecoderPool(1, { maxPixels: config.maxPixels, timeoutMs: config.decodeTimeoutMs });
    // Room for two pictures; a taker counts as gone only after a minute.
    table = new RecentPixels(2 * PICTURE_BYTES, 600_000, Date.now, 60_000);
    service = new DownloadService({
      pool: db(),
      queue: { send: async () => null },
      log: { debug: () => {}, warn: () => {}, error: () => {} } as never,
      download: imageDownloader(new BlobWriter(db(), new FileSystemBlobStore(path.join(dir, 'blobs')), 60), config, decoder, table),
      concurrency: 4,
      config: loadDownloadConfig({}),
      recentPixels: table,
      setIsIndexed: async (setId) => indexedSets.has(setId),
    });
    // Smooth pictures, each its own: stored as they came, so their decode gives the pixels the table keeps.
    for (let n = 0; n < 2 * PICTURES; n++) {
      const jpeg = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: { r: 10 * n, g: 200 - 7 * n, b: 90 } } })
        .composite([{ input: Buffer.from(`<svg width="${WIDTH}" height="${HEIGHT}"><circle cx="${20 * n + 20}" cy="120" r="60" fill="#fff"/></svg>`) }])
        .jpeg({ quality: 80 })
        .toBuffer();
      server.set(`/p/${n}.jpg`, jpeg);
    }
    // Something takes from the table here (as a search service's first passes do).
    table.put('earlier', { data: new Uint8Array(PICTURE_BYTES), width: WIDTH, height: HEIGHT });
    table.take('earlier');
  });
  afterAll(async () => {
    service?.close();
    await decoder?.close();
    await server?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  async function setOf(first: number): Promise<string> {
    const setId = newResourceId();
    await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, 7, 'image_set', 'paced')`, [setId]);
    for (let n = first; n < first + PICTURES; n++) await db().query('INSERT INTO data_set_records (set_id, url) VALUES ($1, $2)', [setId, server.url(`/p/${n}.jpg`)]);
    return setId;
  }

  const downloadedKeys = async (setId: string) =>
    (await db().query<{ blob_key: string }>(`SELECT blob_key FROM data_set_records WHERE set_id = $1 AND status = 'downloaded' ORDER BY change_seq`, [setId])).rows.map((r) => r.blob_key);

  it('holds an indexed set’s downloads until the pixels before them are taken, so every picture’s pixels are kept', async () => {
    const setId = await setOf(0);
    indexedSets.add(setId);
    const turn = service.processSet(setId);
    const taken = new Map<string, RgbImage | undefined>();
    while (taken.size < PICTURES) {
      const fresh = await waitUntil(
        async () => (await downloadedKeys(setId)).filter((key) => !taken.has(key)),
        (keys) => keys.length > 0,
        60_000,
      );
      // Never more downloaded and not yet taken than the table holds.
      expect(fresh.length).toBeLessThanOrEqual(2);
      for (const key of fresh) taken.set(key, table.take(key));
    }
    expect((await turn).processed).toBe(PICTURES);
    expect([...taken.values()].map((pixels) => pixels && [pixels.width, pixels.height])).toEqual(Array(PICTURES).fill([WIDTH, HEIGHT]));
  });

  it('does not hold back a set nobody indexes: it downloads at once, and the table keeps what fits', async () => {
    const setId = await setOf(PICTURES);
    expect((await service.processSet(setId)).processed).toBe(PICTURES);
    const keys = await downloadedKeys(setId);
    expect(keys).toHaveLength(PICTURES);
    expect(keys.filter((key) => table.take(key) !== undefined)).toHaveLength(2);
  });
});
