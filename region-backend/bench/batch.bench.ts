/**
 * Batch-task throughput through the real backend: a task of 1,000 URLs (IRIS_BENCH_BATCH_URLS) per service
 * family (face detection, pornography classification, colour analysis) run by a backend child process with
 * the default settings (one inference thread per core, two lines at once, batch work on all threads but
 * one), timed from apply until the task reports SUCCESS. Images are 640×480 photo-like JPEGs from a loopback
 * server, every URL new. Interactive latency: p50 of sequential `/classify/_0000024` queries on an idle
 * backend and while a face-detection task runs; then the same with batch work allowed on every thread
 * (IRIS_BATCH_INFERENCE_THREADS = cores), on a shorter task, to show what the reserved thread buys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newResourceId } from '@iris/shared';
import { median, percentile, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { photoJpeg } from '../test/support/test-images.js';
import { startChildBackend, type ChildBackend } from '../test/data-sets/child-backend.js';
import { prepareModels } from '../src/vision/prepare-models.js';

const URLS = Number(process.env.IRIS_BENCH_BATCH_URLS ?? 1000);
const PHOTOS = 24;
const PROBES = 30;
/** URLs of the comparison task (batch work on every thread), kept shorter. */
const COMPARISON_URLS = 300;
const SERVICES = [
  { id: '_0000049', family: 'detect', name: 'face detection' },
  { id: '_0000024', family: 'classify', name: 'pornography' },
  { id: '_0000072', family: 'color', name: 'colour (everything)' },
];

interface TaskData {
  state: string;
  total: number;
  success?: number;
  estimated_processing_time?: number;
}

function multipartBody(fields: Record<string, string>, file: string): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----iris${newResourceId(12)}`;
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="urls"; filename="urls.txt"\r\nContent-Type: text/plain\r\n\r\n${file}\r\n--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function info(backend: ChildBackend, taskId: string): Promise<TaskData> {
  return ((await backend.call({ method: 'GET', url: `/batch/_1000001/task/info/${taskId}` })).json() as { data: TaskData }).data;
}

/** Prepares and applies a task; resolves when it is applied, with a promise of its run time. */
async function startTask(backend: ChildBackend, serviceId: string, urls: string[]): Promise<{ taskId: string; estimate: number; done: Promise<number> }> {
  const taskId = newResourceId();
  const body = multipartBody({ service_id: serviceId }, urls.join('\n'));
  const prepared = await backend.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: taskId, body: body.payload, headers: body.headers });
  if (prepared.status !== 200) throw new Error(`prepare failed: ${prepared.text}`);
  const started = performance.now();
  const applied = await backend.call({ method: 'POST', url: '/batch/_1000001/task/apply', body: { task_id: taskId } });
  if (applied.status !== 200) throw new Error(`apply failed: ${applied.text}`);
  const estimate = (applied.json() as { data: { estimated_processing_time: number } }).data.estimated_processing_time;
  const done = (async () => {
    for (;;) {
      const task = await info(backend, taskId);
      if (task.state === 'SUCCESS') return (performance.now() - started) / 1000;
      if (task.state === 'FAILURE') throw new Error(`task ${taskId} failed`);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { taskId, estimate, done };
}

/** A query's whole time and its model part (`classify_time`: from the decoded picture to the answer). */
interface Probe {
  ms: number;
  modelMs: number;
}

async function probe(backend: ChildBackend, url: string): Promise<Probe> {
  const started = performance.now();
  const res = await backend.call({ method: 'POST', url: '/classify/_0000024', body: `url=${encodeURIComponent(url)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  if (res.status !== 200) throw new Error(`probe failed: ${res.text}`);
  const ms = performance.now() - started;
  return { ms, modelMs: Number((res.json() as { classify_time?: string }).classify_time ?? 0) * 1000 };
}

async function probes(backend: ChildBackend, base: string): Promise<Probe[]> {
  const results: Probe[] = [];
  for (let i = 0; i < PROBES; i++) results.push(await probe(backend, `${base}/probe-${i}.jpg`));
  return results;
}

function latencyRow(label: string, results: Probe[]): (string | number)[] {
  const times = results.map((r) => r.ms);
  return [label, times.length, median(times), percentile(times, 90), Math.max(...times), median(results.map((r) => r.modelMs))];
}

interface Setting {
  label: string;
  env: Record<string, string>;
  services: typeof SERVICES;
  urls: number;
}

export default async function run(): Promise<void> {
  // The model cache every backend below shares (test/data-sets/child-backend.ts), made before they start.
  await prepareModels();
  const cores = os.availableParallelism();
  const settings: Setting[] = [
    { label: `default (IRIS_BATCH_INFERENCE_THREADS=${Math.max(1, cores - 1)})`, env: {}, services: SERVICES, urls: URLS },
    { label: `IRIS_BATCH_INFERENCE_THREADS=${cores} (every thread)`, env: { IRIS_BATCH_INFERENCE_THREADS: String(cores) }, services: SERVICES.slice(0, 1), urls: Math.min(URLS, COMPARISON_URLS) },
  ];
  const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) => photoJpeg(640, 480, i + 1)));
  const server = http.createServer((req, res) => {
    const photo = photos[Number(/(\d+)/.exec(req.url ?? '')?.[1] ?? 0) % PHOTOS]!;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-batch-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  let run = 0;
  const freshUrls = (n: number) => {
    run++;
    return Array.from({ length: n }, (_, i) => `${base}/photo-${i}.jpg?run=${run}`);
  };
  const throughput: (string | number)[][] = [];
  const latency: (string | number)[][] = [];
  try {
    console.log(`${PHOTOS} distinct 640×480 JPEGs, new URLs for every task, ${cores} cores, ${cores} inference threads, IRIS_BATCH_CONCURRENCY=2, load average ${os.loadavg()[0]!.toFixed(1)} at start\n`);
    for (const [index, setting] of settings.entries()) {
      const database = `iris_bench_${index}`;
      await postgres.ensureDatabase(database);
      const backend = await startChildBackend({
        databaseUrl: postgres.connectionString(database),
        dataDir: path.join(dir, `data-${index}`),
        env: { IRIS_INFERENCE_THREADS: String(cores), ...setting.env },
      });
      try {
        // Warm-up: models load, sockets open (not timed; too small to feed the measured rates).
        for (const service of setting.services) await (await startTask(backend, service.id, freshUrls(4))).done;
        await probes(backend, base);
        if (index === 0) {
          latency.push(latencyRow('idle backend', await probes(backend, base)));
        }
        for (const service of setting.services) {
          const task = await startTask(backend, service.id, freshUrls(setting.urls));
          if (service.family === 'detect') {
            // Interactive queries while this task runs (from the moment it has started).
            while ((await info(backend, task.taskId)).state !== 'STARTED') await new Promise((r) => setTimeout(r, 100));
            const busy = await probes(backend, base);
            if ((await info(backend, task.taskId)).state !== 'STARTED') console.log('warning: the batch task finished before the probes did');
            latency.push(latencyRow(`while a face-detection task runs, ${setting.label}`, busy));
          }
          const seconds = await task.done;
          throughput.push([`${service.id} ${service.name}`, setting.label, setting.urls, seconds, setting.urls / seconds, task.estimate]);
        }
      } finally {
        await backend.kill('SIGTERM');
      }
    }
    printTable(['service', 'setting', 'URLs', 'seconds', 'images/s', 'estimate at apply (s)'], throughput);
    printTable(['interactive /classify/_0000024 (sequential)', 'queries', 'p50 ms', 'p90 ms', 'max ms', 'model part p50 ms'], latency);
  } finally {
    await postgres.stop();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
