/**
 * `/metrics` (its own loopback listener) shows the figures of a real run: requests per route and region,
 * latency histograms, errors, queue depth and age, inference wait and run time, downloads by outcome and
 * reason, index figures and process memory. `/readyz` reports the database, queue, inference pool and models.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../src/observability/build-info.js';
import { newResourceId } from '@iris/shared';
import { photoJpeg } from './support/test-images.js';
import { startImageServer, type ImageServer } from './support/image-server.js';
import { multipart, startTestBackend, type TestBackend } from './support/test-app.js';
import { waitUntil } from './support/wait-for.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let backend: TestBackend;
let images: ImageServer;
let metricsUrl: string;

beforeAll(async () => {
  images = await startImageServer();
  images.set('/a.jpg', await photoJpeg(320, 240, 1));
  images.set('/b.jpg', await photoJpeg(320, 240, 2));
  images.set('/broken.jpg', 'this is not an image');
  backend = await startTestBackend({ IRIS_METRICS_PORT: '0', IRIS_DOWNLOAD_CONCURRENCY: '2', IRIS_BUILD_COMMIT: COMMIT });
  const address = backend.app.metricsAddress();
  if (!address) throw new Error('metrics listener not started');
  expect(address.address).toBe('127.0.0.1');
  metricsUrl = `http://127.0.0.1:${address.port}/metrics`;
});
afterAll(async () => {
  await backend?.close();
  await images?.close();
});

const scrape = async () => (await fetch(metricsUrl)).text();
/** The sum of the samples whose labels include all of `labels` (undefined when there is none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('/metrics during a run', () => {
  it('counts requests, latency and errors per route and region', async () => {
    const setId = newResourceId();
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, payload: { name: 'metrics' } })).statusCode).toBe(200);
    expect((await backend.call({ method: 'GET', url: `/image_sets/_0000014/${newResourceId()}` })).statusCode).toBe(404);
    const text = await scrape();
    expect(sample(text, 'iris_http_requests_total', { route: '/image_sets/_0000014', method: 'POST', status: '200', region: 'cn-east' })).toBe(1);
    expect(sample(text, 'iris_http_request_duration_seconds_count', { route: '/image_sets/_0000014', method: 'POST' })).toBe(1);
    expect(sample(text, 'iris_http_request_duration_seconds_bucket', { route: '/image_sets/_0000014', le: '+Inf' })).toBe(1);
    expect(sample(text, 'iris_http_errors_total', { route: '/image_sets/_0000014/:image_set_id', status: '404' })).toBe(1);
    expect(sample(text, 'iris_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(sample(text, 'iris_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts downloads by outcome and reason, and shows the download queue', async () => {
    const setId = newResourceId();
    await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: setId, payload: { name: 'downloads' } });
    const csv = [images.url('/a.jpg'), images.url('/b.jpg'), images.url('/broken.jpg'), images.url('/missing.jpg')].join('\n');
    const upload = multipart({ urls_to_add: { filename: 'urls.csv', content: csv, contentType: 'text/csv' } });
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, payload: upload.payload, headers: upload.headers })).statusCode).toBe(200);
    const text = await waitUntil(scrape, (t) => (sample(t, 'iris_downloads_total', { outcome: 'ok' }) ?? 0) >= 2 && (sample(t, 'iris_downloads_total', { outcome: 'failed' }) ?? 0) >= 2, 45_000);
    expect(sample(text, 'iris_downloads_total', { outcome: 'failed', reason: 'http-404' })).toBe(1);
    expect(sample(text, 'iris_downloads_total', { outcome: 'failed', reason: 'not-an-image' })).toBe(1);
    expect(sample(text, 'iris_queue_depth', { queue: 'data-sets.download', region: 'cn-east' })).toBe(0);
    expect(sample(text, 'iris_queue_active', { queue: 'data-sets.download' })).toBeDefined();
    expect(sample(text, 'iris_queue_oldest_age_seconds', { queue: 'data-sets.download', region: 'cn-east' })).toBe(0);
  });

  it('times inference: wait for a thread and run per task', async () => {
    const res = await backend.call({ method: 'POST', url: '/detect/_0000049', payload: `url=${encodeURIComponent(images.url('/a.jpg'))}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(200);
    const text = await scrape();
    const runs = text.split('\n').filter((l) => l.startsWith('iris_inference_run_seconds_count{') && l.includes('outcome="ok"'));
    expect(runs.length).toBeGreaterThan(0);
    expect(sample(text, 'iris_inference_wait_seconds_count', { task: 'vision-detect', priority: 'interactive', region: 'cn-east' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'iris_inference_run_seconds_count', { task: 'vision-detect', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'iris_inference_waiting', { priority: 'interactive' })).toBe(0);
    // Where the tiers run, as the threads themselves set it (inference-pool.test.ts checks it against /proc).
    const tiers = backend.app.inference.tierNice();
    expect(sample(text, 'iris_inference_thread_nice', { tier: 'first' })).toBe(tiers.first);
    if (tiers.low !== null) expect(sample(text, 'iris_inference_thread_nice', { tier: 'low' })).toBe(tiers.low);
    expect(sample(text, 'iris_search_indexes_loaded')).toBe(0);
  });

  it('is not on the API port', async () => {
    const res = await backend.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).not.toBe(200);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });
});

describe('/readyz', () => {
  it('answers without an edge signature, with each check', async () => {
    const res = await backend.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ready: true, region: 'cn-east', version: VERSION, commit: COMMIT, checks: { database: { ok: true }, queue: { ok: true }, inference: { ok: true }, models: { ok: true } } });
  });
});

describe('build info', () => {
  it('is one iris_build_info sample of 1 naming the version, the commit and Node', async () => {
    const text = await scrape();
    expect(sample(text, 'iris_build_info', { version: VERSION, commit: COMMIT, node: process.version, region: 'cn-east' })).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('iris_build_info{'))).toHaveLength(1);
  });

  it('says unknown without IRIS_BUILD_COMMIT and refuses a value that is not a plain label', () => {
    expect(readBuildInfo({})).toEqual({ version: VERSION, commit: 'unknown', node: process.version });
    expect(readBuildInfo({ IRIS_BUILD_COMMIT: ' v0.1.0-3-gdf75689 ' }).commit).toBe('v0.1.0-3-gdf75689');
    for (const hostile of ['a"b', 'x'.repeat(65), 'line\nbreak', '{}', 'é', 'x'.repeat(1_000_000)]) expect(() => readBuildInfo({ IRIS_BUILD_COMMIT: hostile }), hostile.slice(0, 20)).toThrow(/IRIS_BUILD_COMMIT/);
  });

  it('gives any value back as a short plain label or refuses it at boot', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100, unit: 'binary' }), (value) => {
        let commit: string;
        try {
          commit = readBuildInfo({ IRIS_BUILD_COMMIT: value }).commit;
        } catch (err) {
          expect((err as Error).name).toBe('StartupError');
          return;
        }
        expect(commit).toMatch(/^[0-9A-Za-z._-]{1,64}$|^unknown$/);
        if (value.trim()) expect(commit).toBe(value.trim());
      }),
    );
  });

  it('takes the version every workspace and the root share', () => {
    for (const manifest of ['../../package.json', '../../shared/package.json', '../../edge/package.json', '../../console/package.json']) {
      expect((JSON.parse(readFileSync(new URL(manifest, import.meta.url), 'utf8')) as { version: string }).version, manifest).toBe(VERSION);
    }
  });
});
