/**
 * What a region backend costs to start, from its TypeScript sources (under tsx, as `npm start` runs it) and from
 * its build (`npm run build`, as deploy/ runs it and as `npm test` runs the tests' backends, IRIS_BACKEND_BUILT=1),
 * the two alternated start by start on one migrated database (a restart, as after a kill): wall time until
 * /healthz answers, CPU seconds of the process (every thread) by then and over its next 10 s (threads loading,
 * the model cache's check). Then an inference pool of two threads (what a test backend holds) until its first
 * embedding, with its threads from the sources and from the build. The build is made first.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { prepareModels } from '../src/vision/prepare-models.js';
import { startChildBackend } from '../test/data-sets/child-backend.js';
import { treeCpuSeconds } from './process-cpu.js';

const STARTS = Number(process.env.IRIS_BENCH_STARTS ?? 5);
const SETTLE_MS = 10_000;
const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRIES = [
  { label: 'from the sources (tsx)', built: '0' },
  { label: 'from the build', built: '1' },
] as const;

interface Start {
  readyMs: number;
  readyCpu: number;
  settleCpu: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withEntry<T>(built: string, work: () => Promise<T>): Promise<T> {
  const before = process.env.IRIS_BACKEND_BUILT;
  process.env.IRIS_BACKEND_BUILT = built;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.IRIS_BACKEND_BUILT;
    else process.env.IRIS_BACKEND_BUILT = before;
  }
}

async function poolStart(): Promise<{ readyCpu: number; embeddedCpu: number }> {
  const side = 96;
  const before = process.cpuUsage();
  const seconds = () => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  };
  const pool = new InferencePool(1, { lowPriorityThreads: 1 });
  try {
    while (pool.idleThreads < pool.threads) await sleep(20); // both threads loaded
    const readyCpu = seconds();
    await pool.run('embed', { rgb: { data: new Uint8Array(side * side * 3).fill(90), width: side, height: side } });
    return { readyCpu, embeddedCpu: seconds() };
  } finally {
    await pool.close();
  }
}

export default async function run(): Promise<void> {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  await prepareModels();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-start-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const starts = new Map<string, Start[]>(ENTRIES.map((e) => [e.label, []]));
  try {
    await postgres.ensureDatabase('iris_bench_start');
    const databaseUrl = postgres.connectionString('iris_bench_start');
    // One start that migrates the database and is not counted.
    for (let i = -1; i < STARTS; i++) {
      for (const entry of ENTRIES) {
        const started = performance.now();
        const backend = await withEntry(entry.built, () => startChildBackend({ databaseUrl, dataDir: path.join(dir, 'data'), env: { IRIS_WARM_MODELS: '0' } }));
        const readyMs = performance.now() - started;
        const readyCpu = treeCpuSeconds(backend.process.pid!);
        await sleep(SETTLE_MS);
        const settleCpu = treeCpuSeconds(backend.process.pid!) - readyCpu;
        await backend.kill('SIGTERM');
        if (i >= 0) starts.get(entry.label)!.push({ readyMs, readyCpu, settleCpu });
      }
    }
  } finally {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${STARTS} starts each, alternated; one inference thread and one low-priority thread, models not warmed\n`);
  printTable(
    ['backend process', 'ms to /healthz p50', 'CPU-s by then p50', `CPU-s over the next ${SETTLE_MS / 1000} s p50`],
    ENTRIES.map((e) => {
      const s = starts.get(e.label)!;
      return [e.label, median(s.map((x) => x.readyMs)), median(s.map((x) => x.readyCpu)), median(s.map((x) => x.settleCpu))];
    }),
  );
  console.log('');
  const pools = new Map<string, { readyCpu: number; embeddedCpu: number }[]>(ENTRIES.map((e) => [e.label, []]));
  for (let i = 0; i < STARTS; i++) for (const entry of ENTRIES) pools.get(entry.label)!.push(await withEntry(entry.built, poolStart));
  printTable(
    ['inference pool of 2 threads, created by code running from the sources', 'CPU-s until both answer p50', 'CPU-s until its first embedding p50'],
    ENTRIES.map((e) => [`threads ${e.label}`, median(pools.get(e.label)!.map((x) => x.readyCpu)), median(pools.get(e.label)!.map((x) => x.embeddedCpu))]),
  );
}
