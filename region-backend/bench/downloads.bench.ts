/**
 * Data-set download throughput through the real backend: a 1,000-image bulk add (CSV upload) to a backend
 * child process, timed until the set reports `downloaded`. Each image is downloaded from a loopback HTTP
 * server, decoded, normalised and written to the blob store by the durable download jobs. Photos are
 * generated 1024×768 JPEGs (~q85); every run uses new URLs, so the URL cache does not help, except in the
 * last row, which adds the same URLs again to a new set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newResourceId } from '@iris/shared';
import { median, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { photoJpeg } from '../test/support/test-images.js';
import { fileBody, startChildBackend, type ChildBackend } from '../test/data-sets/child-backend.js';
import { prepareModels } from '../src/vision/prepare-models.js';

const IMAGES = 1000;
const LARGE_FILE_LINES = 100_000;
const PHOTOS = 24;
const RUNS = 3;
const CONCURRENCY = [4, 8];

interface RunResult {
  uploadMs: number;
  totalMs: number;
}

async function bulkAdd(backend: ChildBackend, urls: string[]): Promise<RunResult> {
  const setId = newResourceId();
  const created = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, body: { name: 'bench' } });
  if (created.status !== 200) throw new Error(`create failed: ${created.text}`);
  const upload = fileBody('urls_to_add', 'urls.csv', urls.map((u, i) => `${u},meta ${i},a|b`).join('\n'));
  const started = performance.now();
  const added = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: upload.payload, headers: upload.headers });
  const uploadMs = performance.now() - started;
  if (added.status !== 200) throw new Error(`bulk add failed: ${added.text}`);
  for (;;) {
    const set = (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${setId}` })).json() as { status: string; n_downloaded: number; n_failed: number };
    if (set.status === 'downloaded') {
      if (set.n_downloaded !== urls.length) throw new Error(`only ${set.n_downloaded} of ${urls.length} downloaded (${set.n_failed} failed)`);
      return { uploadMs, totalMs: performance.now() - started };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export default async function run(): Promise<void> {
  // The model cache every backend below shares (test/data-sets/child-backend.ts), made before they start.
  await prepareModels();
  const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) => photoJpeg(1024, 768, i + 1)));
  const server = http.createServer((req, res) => {
    const photo = photos[Number(/(\d+)/.exec(req.url ?? '')?.[1] ?? 0) % PHOTOS]!;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-downloads-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  let run = 0;
  const freshUrls = () => {
    run++;
    return Array.from({ length: IMAGES }, (_, i) => `${base}/photo-${i}.jpg?run=${run}`);
  };
  try {
    await postgres.ensureDatabase('iris_bench');
    const avgKb = photos.reduce((s, p) => s + p.length, 0) / photos.length / 1024;
    console.log(`${IMAGES} URLs per run (${PHOTOS} distinct 1024×768 JPEGs, ${avgKb.toFixed(0)} KB on average), ${RUNS} runs per row, ${os.availableParallelism()} cores\n`);
    const rows: (string | number)[][] = [];
    for (const concurrency of CONCURRENCY) {
      const backend = await startChildBackend({
        databaseUrl: postgres.connectionString('iris_bench'),
        dataDir: path.join(dir, `data-${concurrency}`),
        env: { IRIS_DOWNLOAD_CONCURRENCY: String(concurrency) },
      });
      try {
        await bulkAdd(backend, freshUrls().slice(0, 100)); // warm-up: sockets, sharp, page cache
        const results: RunResult[] = [];
        let last: string[] = [];
        for (let r = 0; r < RUNS; r++) {
          last = freshUrls();
          results.push(await bulkAdd(backend, last));
        }
        const totals = results.map((x) => x.totalMs);
        rows.push([
          `new URLs, IRIS_DOWNLOAD_CONCURRENCY=${concurrency}`,
          IMAGES / (median(totals) / 1000),
          median(totals) / 1000,
          median(results.map((x) => x.uploadMs)),
        ]);
        if (concurrency === CONCURRENCY[CONCURRENCY.length - 1]) {
          const cached = await Promise.all([0, 1, 2].map(async () => bulkAdd(backend, last)));
          rows.push(['same URLs again (URL cache)', IMAGES / (median(cached.map((x) => x.totalMs)) / 1000), median(cached.map((x) => x.totalMs)) / 1000, median(cached.map((x) => x.uploadMs))]);
        }
      } finally {
        await backend.kill('SIGTERM');
      }
    }
    // A large file: parse, validate and commit only (the set is deleted right after, before much downloading).
    const backend = await startChildBackend({ databaseUrl: postgres.connectionString('iris_bench'), dataDir: path.join(dir, 'data-large'), env: { IRIS_DOWNLOAD_CONCURRENCY: '1' } });
    try {
      const setId = newResourceId();
      await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, body: { name: 'large' } });
      const csv = Array.from({ length: LARGE_FILE_LINES }, (_, i) => `${base}/large/${i}.jpg,"meta, number ${i}",tag${i % 10}|all`).join('\n');
      const upload = fileBody('urls_to_add', 'large.csv', csv);
      const started = performance.now();
      const added = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, body: upload.payload, headers: upload.headers });
      const seconds = (performance.now() - started) / 1000;
      if (added.status !== 200) throw new Error(`large upload failed: ${added.text}`);
      await backend.call({ method: 'DELETE', url: `/image_sets/_0000014/${setId}` });
      console.log(`Upload of a ${LARGE_FILE_LINES.toLocaleString('en')}-line CSV (${(upload.payload.length / 1024 / 1024).toFixed(1)} MB): ${seconds.toFixed(1)} s, ${Math.round(LARGE_FILE_LINES / seconds)} lines/s (one run)\n`);
    } finally {
      await backend.kill('SIGTERM');
    }
    printTable(['1,000-image bulk add', 'images/s (median)', 'seconds to downloaded (median)', 'upload request ms (median)'], rows);
  } finally {
    server.close();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
