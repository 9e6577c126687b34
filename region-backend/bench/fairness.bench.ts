/**
 * Fairness between accounts on one backend process (a real child process, one inference thread per core).
 * Account B makes ordinary sequential face-detection calls (`/detect/_0000049`, an uploaded 640×480 JPEG),
 * first alone, then while account A floods the same process from 24 concurrent callers in another process
 * (fairness-flood.ts): analysis calls
 * (uploads), image-set uploads of 100 new URLs each (downloads) and a batch face-detection task of 300 URLs.
 * Reported: B's p50/p99 alone and under the flood, in the same run, with the default per-account limits and
 * with the limits lifted (one account may take every thread and queue without bound), paced at the edge's
 * per-key limit with the first tier raised above the process (where the bench may raise priorities) and not
 * raised, and what A got.
 * Goal: B's p50 under the flood within 1.5× of B alone.
 * First, the inference pool alone (no HTTP, no decode): B's face detection beside A's flood of the same model,
 * with two tiers (A on the low-priority threads) and with one tier (A holding half the threads).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { realPhoto } from '../test/support/real-photos.js';
import { photoJpeg } from '../test/support/test-images.js';
import { fileBody, startChildBackend, type ChildBackend } from '../test/data-sets/child-backend.js';
import { cpuMeter, threadNiceOffsets } from './process-cpu.js';
import { prepareModels } from '../src/vision/prepare-models.js';

const B = 202;
const PROBES = Number(process.env.IRIS_BENCH_FAIRNESS_PROBES ?? 30);
const FLOODERS = 24;

interface Probe {
  ms: number;
  status: number;
  /** The backend's own clock: from the request's arrival to the answer (`time`), and the model's part (`detecttime`). */
  serverMs: number;
  modelMs: number;
}

async function detect(backend: ChildBackend, accountId: number, image: Buffer): Promise<Probe> {
  const body = fileBody('image', 'q.jpg', image);
  const started = performance.now();
  const res = await backend.call({ method: 'POST', url: '/detect/_0000049', accountId, body: body.payload, headers: body.headers });
  const ms = performance.now() - started;
  const answer = res.status === 200 ? (res.json() as { time?: string; detecttime?: string }) : {};
  return { ms, status: res.status, serverMs: Number(answer.time ?? 0) * 1000, modelMs: Number(answer.detecttime ?? 0) * 1000 };
}

async function probes(backend: ChildBackend, image: Buffer): Promise<Probe[]> {
  const results: Probe[] = [];
  for (let i = 0; i < PROBES; i++) {
    const r = await detect(backend, B, image);
    if (r.status !== 200) throw new Error(`B's call answered ${r.status}`);
    results.push(r);
  }
  return results;
}

/** Where B's time went (medians): before the backend saw the request or after it answered, body + decode, model. */
function parts(results: Probe[]): string {
  const outside = median(results.map((r) => r.ms - r.serverMs));
  const bodyAndDecode = median(results.map((r) => r.serverMs - r.modelMs));
  return `${outside.toFixed(0)} / ${bodyAndDecode.toFixed(0)} / ${median(results.map((r) => r.modelMs)).toFixed(0)}`;
}

interface FloodCounts {
  ok: number;
  busy: number;
  other: number;
}

/**
 * Account A's flood in its own process (fairness-flood.ts, which also serves A's pictures), so B's timings are
 * not taken on an event loop busy with A's calls; resolves with A's counts once `stop` resolves.
 */
async function flood(backend: ChildBackend, started: (child: ChildProcess) => void, stop: Promise<void>, rate: number): Promise<FloodCounts> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fairness-flood.ts', import.meta.url))], {
    env: { ...process.env, IRIS_FLOOD_BACKEND: backend.base, IRIS_FLOOD_CALLERS: String(FLOODERS), IRIS_FLOOD_RATE: String(rate) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
    if (output.includes('flooding')) started(child);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await stop;
  child.stdin!.end('stop\n');
  await exited;
  const line = output.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`the flood process printed no counts: ${output.slice(-500)}`);
  return JSON.parse(line) as FloodCounts;
}

/** B's face detections on the pool alone, then beside A's flood of the same task (A: `floodCallers` loops). */
async function poolProbe(pool: InferencePool, image: Awaited<ReturnType<typeof realPhoto>>): Promise<{ alone: number; flooded: number }> {
  const detectOn = (accountId: number) => pool.run('vision-detect', { stage: 'face-detector', image }, { accountId });
  const timed = async () => {
    const times: number[] = [];
    for (let i = 0; i < PROBES; i++) {
      const started = performance.now();
      await detectOn(B);
      times.push(performance.now() - started);
    }
    return median(times);
  };
  for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: pool.threads }, () => detectOn(101))); // models load on every thread
  const alone = await timed();
  let flooding = true;
  const flood = Array.from({ length: 6 }, async () => {
    while (flooding) await detectOn(101);
  });
  await new Promise((r) => setTimeout(r, 300));
  const flooded = await timed();
  flooding = false;
  await Promise.all(flood);
  return { alone, flooded };
}

async function poolRows(cores: number): Promise<(string | number)[][]> {
  const image = await realPhoto('samples.jpg', 640);
  const rows: (string | number)[][] = [];
  const settings = [
    { label: `two tiers: ${cores} threads + ${cores} low-priority (default)`, limits: {} },
    { label: `one tier: ${cores} threads, A holds at most ${Math.ceil(cores / 2)}`, limits: { lowPriorityThreads: 0 } },
  ];
  for (const setting of settings) {
    const pool = new InferencePool(cores, setting.limits);
    try {
      const { alone, flooded } = await poolProbe(pool, image);
      rows.push([setting.label, alone, flooded, flooded / alone]);
    } finally {
      await pool.close();
    }
  }
  return rows;
}

export default async function run(): Promise<void> {
  // The model cache every backend below shares (test/data-sets/child-backend.ts), made before they start.
  await prepareModels();
  const cores = os.availableParallelism();
  printTable(['inference pool alone: B face detection (640-px photo) beside A flooding the same model from 6 loops', 'B alone p50 ms', 'B beside A p50 ms', 'ratio'], await poolRows(cores));
  const photos = await Promise.all(Array.from({ length: 2 }, (_, i) => photoJpeg(640, 480, i + 1)));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-fairness-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  // The backend is called directly, as the edge would after its per-key rate limit: the first two settings let
  // A's callers go as fast as answers come (the limit lifted too); the third paces A at the edge's default
  // limit of 3000 calls per minute per key (50/s), what a flood through the edge can send with one key.
  const lifted = { IRIS_ACCOUNT_INFERENCE_THREADS: String(cores), IRIS_ACCOUNT_INFERENCE_QUEUE: '10000', IRIS_ACCOUNT_UPLOADS: '1000', IRIS_ACCOUNT_DOWNLOAD_CONCURRENCY: '256' };
  const settings: { label: string; env: Record<string, string>; rate: number }[] = [
    { label: 'per-account limits (defaults)', env: {}, rate: 0 },
    { label: 'limits lifted', env: lifted, rate: 0 },
    { label: 'defaults, A at the edge rate limit (50 calls/s)', env: {}, rate: 50 },
    { label: 'the same, first tier not raised (as without CAP_SYS_NICE)', env: { IRIS_FIRST_TIER_PRIORITY_BOOST: '0' }, rate: 50 },
  ];
  const rows: (string | number)[][] = [];
  const cpuRows: (string | number)[][] = [];
  try {
    console.log(`${cores} cores, ${cores} inference threads, B: ${PROBES} sequential /detect/_0000049 uploads; A: ${FLOODERS} concurrent callers (analysis uploads, set uploads of 100 URLs) + a 300-URL batch task\n`);
    for (const [index, setting] of settings.entries()) {
      const database = `iris_bench_fair_${index}`;
      await postgres.ensureDatabase(database);
      const backend = await startChildBackend({
        databaseUrl: postgres.connectionString(database),
        dataDir: path.join(dir, `data-${index}`),
        env: { IRIS_INFERENCE_THREADS: String(cores), ...setting.env },
      });
      try {
        for (let i = 0; i < 3; i++) await detect(backend, B, photos[0]!); // models load
        const raised = Math.min(0, ...threadNiceOffsets(backend.process.pid!));
        const aloneProbes = await probes(backend, photos[1]!);
        const alone = aloneProbes.map((p) => p.ms);
        let stop!: () => void;
        const stopped = new Promise<void>((resolve) => (stop = resolve));
        let floodStarted!: (child: ChildProcess) => void;
        const started = new Promise<ChildProcess>((resolve) => (floodStarted = resolve));
        const flooding = flood(backend, floodStarted, stopped, setting.rate);
        const floodProcess = await started;
        await new Promise((r) => setTimeout(r, 2000));
        // Where the cores go while B is timed: the backend, PostgreSQL, A's client (and A's picture server), B's client.
        const meter = cpuMeter({ backend: { pid: backend.process.pid! }, postgres: { pid: postgres.pid }, flood: { pid: floodProcess.pid! }, probe: { pid: process.pid, alone: true } });
        const busyProbes = await probes(backend, photos[1]!);
        const used = meter.coresSince();
        cpuRows.push([setting.label, used.backend!, used.postgres!, used.flood!, used.probe!]);
        const busy = busyProbes.map((p) => p.ms);
        stop();
        const counts = await flooding;
        rows.push([setting.label, median(alone), percentile(alone, 99), median(busy), percentile(busy, 99), median(busy) / median(alone), parts(aloneProbes), parts(busyProbes), raised, counts.ok, counts.busy, counts.other]);
      } finally {
        await backend.kill('SIGTERM');
      }
    }
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (1, 5, 15 min) at the end`);
    printTable(['setting', 'B alone p50 ms', 'B alone p99 ms', 'B under flood p50 ms', 'B under flood p99 ms', 'p50 ratio', 'B alone: outside / body+decode / model ms', 'B under flood: outside / body+decode / model ms', 'first tier nice (below the process: raised)', 'A calls 200', 'A calls 503', 'A calls other'], rows);
    console.log(`Cores used while B was timed under the flood (of ${cores}; CPU time from /proc over the phase):\n`);
    printTable(['setting', 'backend process', 'PostgreSQL', "A's client and picture server", "B's client"], cpuRows);
  } finally {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
