/**
 * Ingest with one and with three backend processes in a region (`npm run bench -- scale-out-ingest`): the
 * scale-out setup (support/scale-out-region.ts: native PostgreSQL with pgvector, HAProxy, the edge), one CSV of
 * distinct 640×480 JPEGs added through the edge to a set with a search service, timed until every picture is
 * searchable (`n_indexed`) and complete (`n_first_pass_only` 0), with the CPU each part used per picture.
 *
 * On one machine more processes add no cores: the rows show what a process costs and what coordinating several
 * costs (claims, leases, the shared index's change feed), not a speed-up. A first set of pictures is added and
 * completed before each measured run, so model loading and first-use costs stay out of it.
 *
 *   IRIS_BENCH_SCALE_OUT_PICTURES=600 IRIS_BENCH_SCALE_OUT_PROCESSES=1,3 npm run bench -- scale-out-ingest
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { treeCpuSeconds } from '../../region-backend/bench/process-cpu.js';
import { startImageServer } from '../../region-backend/test/support/image-server.js';
import { nativeServices, startNativePostgres } from '../../region-backend/test/support/native-services.js';
import { stampedPhotoJpegs } from '../../region-backend/test/support/test-images.js';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import { prepareModels } from '../../region-backend/src/vision/prepare-models.js';
import { printTable } from '../../scripts/table.js';
import type { PlatformFixture } from '../e2e/platform-fixture.js';
import { startScaleOutRegion, type ScaleOutRegion } from '../e2e/support/scale-out-region.js';

const PICTURES = Number(process.env.IRIS_BENCH_SCALE_OUT_PICTURES ?? 600);
const WARM_UP_PICTURES = 24;
const PROCESS_COUNTS = (process.env.IRIS_BENCH_SCALE_OUT_PROCESSES ?? '1,3').split(',').map(Number);
const CORES = os.availableParallelism();

interface IngestRun {
  processes: number;
  searchableSeconds: number;
  completeSeconds: number;
  /** CPU milliseconds per picture up to complete, by part. */
  cpuMs: Record<string, number>;
}

/** CPU seconds so far of the region's processes: its backends together, PostgreSQL, the edge. */
function cpuSeconds(region: ScaleOutRegion, postgresPid: number): Record<string, number> {
  const { edge } = region.platform.processes();
  return {
    backends: region.backends.reduce((sum, b) => sum + treeCpuSeconds(b.process.pid!), 0),
    PostgreSQL: treeCpuSeconds(postgresPid),
    edge: edge ? treeCpuSeconds(edge) : NaN,
  };
}

function form(csv: string): () => RequestInit {
  return () => {
    const body = new FormData();
    body.append('urls_to_add', new Blob([csv], { type: 'text/plain' }), 'urls.txt');
    return { method: 'POST', body };
  };
}

/** Answers a client retries after a pause: the load balancer had no process in rotation for a moment. */
const RETRYABLE = new Set([502, 503, 504]);
let retried = 0;

async function call(platform: PlatformFixture, pathAndQuery: string, init: () => RequestInit = () => ({})): Promise<Response> {
  for (;;) {
    const res = await platform.call(pathAndQuery, init());
    if (!RETRYABLE.has(res.status)) return res;
    retried++;
    await new Promise((r) => setTimeout(r, 250)); // a client's back-off before its retry
  }
}

async function ok(res: Response, what: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Adds `urls` to a new set with a service; seconds until searchable and complete, and the CPU it took. */
async function addAndWait(platform: PlatformFixture, urls: string[], cpu: () => Record<string, number>): Promise<Omit<IngestRun, 'processes'>> {
  const json = (body: unknown) => (): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const set = await ok(await call(platform, '/image_sets/_0000014', json({ name: 'ingest' })), 'create set');
  const service = await ok(await call(platform, `/image_sets/_0000014/${String(set.id)}/services`, json({ name: 'ingest', scenario: 'general' })), 'create service');
  const before = cpu();
  const started = performance.now();
  await ok(await call(platform, `/image_sets/_0000014/${String(set.id)}`, form(urls.map((u, i) => `${u},m${i}`).join('\n'))), 'add pictures');
  let searchableSeconds = 0;
  // Polled every 200 ms: the times are read to that step, fine against runs of a minute and more.
  await waitUntil(
    async () => ok(await call(platform, `/customer_services/_0000172/${String(service.id)}`), 'service info'),
    (info) => {
      if (!searchableSeconds && Number(info.n_indexed) >= urls.length) searchableSeconds = (performance.now() - started) / 1000;
      return searchableSeconds > 0 && Number(info.n_first_pass_only) === 0;
    },
    1_800_000,
  );
  const completeSeconds = (performance.now() - started) / 1000;
  const after = cpu();
  const cpuMs = Object.fromEntries(Object.keys(after).map((part) => [part, ((after[part]! - before[part]!) * 1000) / urls.length]));
  return { searchableSeconds, completeSeconds, cpuMs };
}

export default async function run(): Promise<void> {
  const status = nativeServices();
  if (!status.available) {
    console.log(`scale-out ingest skipped: ${status.reason}`);
    return;
  }
  await prepareModels();
  const postgres = await startNativePostgres(status.services, { settings: ['max_connections=300'] });
  const images = await startImageServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'iris-scale-ingest-'));
  const rows: IngestRun[] = [];
  try {
    const total = PROCESS_COUNTS.length * (PICTURES + WARM_UP_PICTURES);
    const pictures = await stampedPhotoJpegs(total);
    pictures.forEach((picture, i) => images.set(`/img/${i}.jpg`, picture));
    const kb = pictures.reduce((sum, p) => sum + p.length, 0) / pictures.length / 1024;
    let next = 0;
    const take = (n: number) => Array.from({ length: n }, () => images.url(`/img/${next++}.jpg`));
    for (const processes of PROCESS_COUNTS) {
      const region = await startScaleOutRegion({
        services: status.services,
        postgres,
        root,
        name: `ingest${processes}`,
        store: 'hnsw',
        processes,
        env: { IRIS_INFERENCE_THREADS: String(CORES) },
      });
      try {
        const cpu = () => cpuSeconds(region, postgres.handle.pid);
        await addAndWait(region.platform, take(WARM_UP_PICTURES), cpu);
        rows.push({ processes, ...(await addAndWait(region.platform, take(PICTURES), cpu)) });
      } finally {
        await region.close();
      }
    }
    console.log(
      `${PICTURES} distinct 640×480 JPEGs (${kb.toFixed(0)} KB on average) from a loopback server, one CSV through the edge to a set with a ` +
        `general search service; cn-east on 1 or 3 processes (IRIS_INFERENCE_THREADS=${CORES} each, hnsw store) behind HAProxy, native ` +
        `PostgreSQL; ${CORES} cores, load average ${os.loadavg()[0]!.toFixed(1)} at the end. CPU per picture up to complete; PostgreSQL serves ` +
        `both regions (ap-southeast idle). Calls answered 502/503/504 and sent again: ${retried}.\n`,
    );
    printTable(
      ['processes', 'searchable s', 'images/s searchable', 'complete s', 'images/s complete', 'CPU ms/picture: backends', 'PostgreSQL', 'edge', 'all'],
      rows.map((r) => {
        const all = Object.values(r.cpuMs).reduce((a, b) => a + b, 0);
        return [r.processes, r.searchableSeconds.toFixed(1), (PICTURES / r.searchableSeconds).toFixed(1), r.completeSeconds.toFixed(1), (PICTURES / r.completeSeconds).toFixed(1), r.cpuMs.backends!.toFixed(1), r.cpuMs.PostgreSQL!.toFixed(1), r.cpuMs.edge!.toFixed(1), all.toFixed(1)];
      }),
    );
  } finally {
    await images.close();
    await postgres.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
