/**
 * Image intake throughput: download from a loopback HTTP server, decode, normalise to the stored JPEG
 * copy, and write it to the file-system blob store, at concurrency 1, 4 and 8. Then the cost of each
 * stage at concurrency 1. Photos are generated (1600×1200 photo-like JPEGs, ~q85).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { closedLoopRate, median, percentile, printTable } from '../../scripts/table.js';
import { FileSystemBlobStore, putContent } from '../src/images/blob-store.js';
import { decodeImage, normaliseForStorage, probeImage } from '../src/images/image-decoder.js';
import { fetchImage } from '../src/images/image-fetcher.js';
import { photoJpeg } from '../test/support/test-images.js';

const PHOTOS = 16;
const IMAGES_PER_RUN = 48;
const RUNS = 3;
const CONCURRENCY = [1, 4, 8];

async function intake(url: string, store: FileSystemBlobStore): Promise<void> {
  const fetched = await fetchImage(url, { allowPrivateAddresses: true });
  const stored = await normaliseForStorage(fetched.bytes);
  await putContent(store, stored.bytes);
}

async function runAtConcurrency(urls: string[], store: FileSystemBlobStore, concurrency: number) {
  const latencies: number[] = [];
  const imagesPerSecond = await closedLoopRate(IMAGES_PER_RUN, concurrency, async (i) => {
    const t = performance.now();
    await intake(urls[i % urls.length]!, store);
    latencies.push(performance.now() - t);
  });
  return { imagesPerSecond, latencies };
}

export default async function run(): Promise<void> {
  const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) => photoJpeg(1600, 1200, i + 1)));
  const server = http.createServer((req, res) => {
    const photo = photos[Number(/(\d+)/.exec(req.url ?? '')?.[1] ?? 0) % PHOTOS]!;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urls = photos.map((_, i) => `${base}/photo-${i}.jpg`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-blobs-'));
  const store = new FileSystemBlobStore(dir);
  try {
    const avgKb = photos.reduce((s, p) => s + p.length, 0) / photos.length / 1024;
    console.log(`${PHOTOS} distinct 1600×1200 JPEGs (${avgKb.toFixed(0)} KB on average), ${IMAGES_PER_RUN} images per run, ${RUNS} runs, ${os.availableParallelism()} cores, sharp threads default\n`);
    await runAtConcurrency(urls, store, 2); // warm-up: sharp, sockets, page cache
    const rows: (string | number)[][] = [];
    for (const concurrency of CONCURRENCY) {
      const runs = [];
      for (let r = 0; r < RUNS; r++) runs.push(await runAtConcurrency(urls, store, concurrency));
      const latencies = runs.flatMap((x) => x.latencies);
      rows.push([concurrency, median(runs.map((x) => x.imagesPerSecond)), median(latencies), percentile(latencies, 95)]);
    }
    printTable(['concurrency', 'images/s (median of runs)', 'latency median ms', 'latency p95 ms'], rows);

    const stages: Record<string, number[]> = { download: [], probe: [], 'decode to RGB (≤1024 px)': [], 'normalise to stored JPEG': [], 'blob store write (fsync)': [] };
    for (let i = 0; i < 24; i++) {
      let t = performance.now();
      const fetched = await fetchImage(urls[i % PHOTOS]!, { allowPrivateAddresses: true });
      stages.download!.push(performance.now() - t);
      t = performance.now();
      await probeImage(fetched.bytes);
      stages.probe!.push(performance.now() - t);
      t = performance.now();
      await decodeImage(fetched.bytes, { maxSide: 1024 });
      stages['decode to RGB (≤1024 px)']!.push(performance.now() - t);
      t = performance.now();
      const stored = await normaliseForStorage(fetched.bytes);
      stages['normalise to stored JPEG']!.push(performance.now() - t);
      t = performance.now();
      await store.put(`stage-${i}`, stored.bytes);
      stages['blob store write (fsync)']!.push(performance.now() - t);
    }
    printTable(
      ['stage (concurrency 1)', 'median ms', 'p95 ms'],
      Object.entries(stages).map(([name, values]) => [name, median(values), percentile(values, 95)]),
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
