/**
 * `npm run bench -- training`: custom training through a real backend child process (embedded PostgreSQL,
 * pg-boss, worker threads on every core).
 *
 * - Training time of a 10 labels × 50 images service, from creation to `running`, with the images already
 *   downloaded: with embedding (features of new images computed) and without (a second service on the same
 *   images: features are read from PostgreSQL), plus the `classifier-train` task alone on those 500 rows.
 * - Inference latency (p50, p99) of `POST /custom_training/{id}` with an uploaded 512-px JPEG.
 *
 * Images: generated 512×512 JPEGs of ten shape families (testing/shape-images.ts), served on loopback.
 * IRIS_BENCH_RUNS (default 3) sets the timed runs of the training rows, after one warm-up run (threads load
 * the model); inference is timed over 60 calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { newResourceId } from '@iris/shared';
import { median, percentile, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import type { CustomServiceObject } from '../src/domains/custom-training/custom-service-view.js';
import { SHAPE_FAMILIES, shapeImage } from '../test/support/shape-images.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { trainClassifier } from '../src/domains/custom-training/classifier-training.js';
import { CLASSIFIER_FEATURE_DIM, CLASSIFIER_FEATURE_PIPELINE } from '../src/vision/training/feature-info.js';
import { bytesToFloat32 } from '../src/vision/training/float-bytes.js';
import { fileBody, startChildBackend, type ChildBackend } from '../test/data-sets/child-backend.js';
import { prepareModels } from '../src/vision/prepare-models.js';

const PER_LABEL = 50;
const RUNS = Number(process.env.IRIS_BENCH_RUNS ?? 3);
const QUERIES = 60;

async function image(family: (typeof SHAPE_FAMILIES)[number], index: number): Promise<Buffer> {
  return sharp(await shapeImage(family, index)).resize(512, 512).jpeg({ quality: 85 }).toBuffer();
}

async function waitRunning(backend: ChildBackend, id: string): Promise<{ total: number; embedding: number }> {
  const started = performance.now();
  let embedding = NaN;
  for (;;) {
    const s = (await backend.call({ method: 'GET', url: `/custom_training/_0000194/services/${id}` })).json() as CustomServiceObject;
    if (s.stage === 'training' && Number.isNaN(embedding)) embedding = performance.now() - started;
    if (s.status === 'running') return { total: performance.now() - started, embedding };
    if (s.status === 'failed') throw new Error(`training failed: ${s.message}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createService(backend: ChildBackend, setId: string): Promise<string> {
  const id = newResourceId();
  const res = await backend.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/services`, resourceId: id, body: { name: 'bench', scenario: 'classifier' } });
  if (res.status !== 200) throw new Error(`create service failed: ${res.text}`);
  return id;
}

export default async function run(): Promise<void> {
  // The model cache every backend below shares (test/data-sets/child-backend.ts), made before they start.
  await prepareModels();
  const served = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-training-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const threads = os.availableParallelism();
  let backend: ChildBackend | null = null;
  try {
    await postgres.ensureDatabase('iris_bench');
    const databaseUrl = postgres.connectionString('iris_bench');
    backend = await startChildBackend({
      databaseUrl,
      dataDir: path.join(dir, 'data'),
      env: { IRIS_INFERENCE_THREADS: String(threads), IRIS_TRAINING_WAIT_MS: '200', LOG_LEVEL: 'error' },
    });
    const labels = SHAPE_FAMILIES.length;
    console.log(`${labels} labels × ${PER_LABEL} images (512×512 JPEGs), ${threads} inference threads, ${RUNS} runs per training row, features ${CLASSIFIER_FEATURE_PIPELINE}.\n`);

    const withEmbedding: { total: number; embedding: number }[] = [];
    const withoutEmbedding: number[] = [];
    let lastSet = '';
    let lastService = '';
    for (let r = -1; r < RUNS; r++) {
      // New images every run, so their features are computed.
      const rows: string[] = [];
      for (const family of SHAPE_FAMILIES) {
        for (let i = 0; i < PER_LABEL; i++) {
          const url = `/r${r}/${family}/${i}.jpg`;
          served.set(url, await image(family, (r + 1) * 1000 + i));
          rows.push(`${base}${url},${family}`);
        }
      }
      const setId = newResourceId();
      await backend.call({ method: 'POST', url: '/custom_training/_0000194/training_sets', resourceId: setId, body: { name: 'bench', description: 'bench' } });
      const upload = fileBody('urls_to_add', 'data.csv', rows.join('\n'));
      await backend.call({ method: 'POST', url: `/custom_training/_0000194/training_sets/${setId}/images`, body: upload.payload, headers: upload.headers });
      for (;;) {
        const set = (await backend.call({ method: 'GET', url: `/custom_training/_0000194/training_sets/${setId}` })).json() as { status: string; n_downloaded: number };
        if (set.status === 'downloaded') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const included = await waitRunning(backend, await createService(backend, setId));
      lastService = await createService(backend, setId);
      const excluded = (await waitRunning(backend, lastService)).total;
      lastSet = setId;
      if (r < 0) continue;
      withEmbedding.push(included);
      withoutEmbedding.push(excluded);
    }

    // The training step alone, on the features the service trained on.
    const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    const pool = new InferencePool(threads);
    const trainMs: number[] = [];
    try {
      const rowsOf = await db.query<{ label: string; features: Buffer }>(
        `SELECT r.label, f.features FROM data_set_records r JOIN classifier_features f ON f.blob_key = r.blob_key AND f.pipeline = $2
         WHERE r.set_id = $1 AND r.deleted_at IS NULL ORDER BY r.id`,
        [lastSet, CLASSIFIER_FEATURE_PIPELINE],
      );
      const rows = rowsOf.rows.map((x) => ({ label: x.label, features: bytesToFloat32(x.features, CLASSIFIER_FEATURE_DIM) }));
      for (let r = 0; r < RUNS + 1; r++) {
        const t0 = performance.now();
        await trainClassifier(pool, rows, { seed: 20_240_601 + r });
        if (r > 0) trainMs.push(performance.now() - t0);
      }
    } finally {
      await pool.close();
      await db.end();
    }

    const s = (ms: number) => ms / 1000;
    printTable(
      ['training (10 labels × 50 images, downloaded)', 'median s', 'runs (s)'],
      [
        ['create → running, embedding included', s(median(withEmbedding.map((x) => x.total))), withEmbedding.map((x) => s(x.total).toFixed(1)).join(', ')],
        ['  of which computing features (create → stage training)', s(median(withEmbedding.map((x) => x.embedding))), withEmbedding.map((x) => s(x.embedding).toFixed(1)).join(', ')],
        ['create → running, embedding excluded (features stored)', s(median(withoutEmbedding)), withoutEmbedding.map((x) => s(x).toFixed(1)).join(', ')],
        [`training step alone (500 × ${CLASSIFIER_FEATURE_DIM} values, ${threads} threads)`, s(median(trainMs)), trainMs.map((x) => s(x).toFixed(1)).join(', ')],
      ],
    );

    const queries = await Promise.all(Array.from({ length: 8 }, (_, i) => image(SHAPE_FAMILIES[i % labels]!, 5000 + i)));
    const times: number[] = [];
    let right = 0;
    for (let i = 0; i < QUERIES + 5; i++) {
      const q = queries[i % queries.length]!;
      const body = fileBody('search', 'q.jpg', q);
      const t0 = performance.now();
      const res = await backend.call({ method: 'POST', url: `/custom_training/${lastService}`, body: body.payload, headers: body.headers });
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`inference failed: ${res.text}`);
      if (i < 5) continue;
      times.push(ms);
      if ((res.json() as { results: { category: string }[] }).results[0]!.category === SHAPE_FAMILIES[i % queries.length % labels]) right++;
    }
    printTable(
      ['inference (uploaded 512-px JPEG, one call at a time)', 'p50 ms', 'p99 ms', 'calls', 'right label first'],
      [['POST /custom_training/{id}', median(times), percentile(times, 99), times.length, `${right}/${times.length}`]],
    );
  } finally {
    await backend?.kill('SIGTERM');
    await postgres.stop();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
