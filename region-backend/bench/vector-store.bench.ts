/**
 * Vector store benchmark: build time, memory, latency and recall@10 of the HNSW store against the exact scan
 * in the same run, unfiltered and with 1% / 20% tag filters; then the pgvector store on the same vectors
 * (pgvector-bench.ts), side by side.
 *
 *   npm run bench -- vector-store                       HNSW and pgvector (native, PGlite) at 100k and 1M vectors of 256 dims
 *   IRIS_BENCH_SIZES=100000 npm run bench -- vector-store
 *
 * Other knobs: IRIS_BENCH_DIM, IRIS_BENCH_M, IRIS_BENCH_EFC, IRIS_BENCH_EF (comma list), IRIS_BENCH_QUERIES;
 * IRIS_BENCH_STORES (hnsw,pgvector; add usearch for the usearch store, usearch-bench.ts),
 * IRIS_BENCH_RESCORE (usearch: extra candidates re-scored with float32 vectors read from disk, 0,40,90), IRIS_BENCH_PG_SIZES (100000,1000000), IRIS_BENCH_PG_EF (64,128,256),
 * IRIS_BENCH_PG_LIVE (live inserts measured, 2000), IRIS_BENCH_PG_TYPE (vector | halfvec),
 * IRIS_BENCH_PG_ENGINES (native,pglite: a native PostgreSQL 15 + pgvector from scripts/native-services.sh, PGlite).
 * Built indexes are cached under .iris/bench-cache/vector-store/<parameters>/ (a 1M build takes minutes on two
 * cores). Each size runs in child processes (build, then measure) so the memory figures are those of a
 * process that holds one store loaded from disk, as a backend does after a restart.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable, percentile, median } from '../../scripts/table.js';
import { DEFAULT_HNSW_PARAMS, HnswVectorStore, type HnswParams } from '../src/vectors/hnsw-vector-store.js';
import { ExactVectorStore } from '../src/vectors/exact-vector-store.js';
import { SyntheticVectors, SYNTHETIC_VERSION, hash } from '../test/support/synthetic-vectors.js';
import { parseTagFilter } from '../src/vectors/tag-filter.js';
import type { SearchOptions, VectorItem } from '../src/vectors/vector-store.js';
import { runPgVectorBench, type PgReport } from './pgvector-bench.js';
import type { PgVectorEngine } from '../test/support/pgvector-server.js';
import { buildUsearch, measureUsearch, type UsearchConfig, type UsearchReport } from './usearch-bench.js';
import { DEFAULT_USEARCH_PARAMS } from '../src/vectors/usearch-vector-store.js';

interface BenchConfig {
  size: number;
  dimension: number;
  m: number;
  efConstruction: number;
  seed: number;
  queries: number;
  efValues: number[];
}

interface BuildReport {
  buildSeconds: number;
  insertsPerSecond: number;
  rssAfterBuildMB: number;
}

interface LatencyRow {
  label: string;
  p50: number;
  p99: number;
  recall: number;
  qps: number;
}

interface MeasureReport {
  build: BuildReport;
  loadSeconds: number;
  baselineRssMB: number;
  rssMB: number;
  /** Highest RSS of the process so far, i.e. the peak while loading. */
  peakLoadRssMB: number;
  heapUsedMB: number;
  arrayBuffersMB: number;
  estimatedMB: number;
  indexFileMB: number;
  sidecarMB: number;
  exactBuildSeconds: number;
  unfiltered: LatencyRow[];
  filtered: (LatencyRow & { filter: string; matches: number; planned: string })[];
}

const K = 10;
const ROLE = process.env.IRIS_VECTOR_BENCH_ROLE;
const CACHE_ROOT = path.resolve(import.meta.dirname, '../../.iris/bench-cache/vector-store');
const MB = 1024 * 1024;

function envList(name: string, fallback: number[], zeroAllowed = false): number[] {
  const raw = process.env[name];
  return raw ? raw.split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && (n > 0 || (zeroAllowed && n === 0))) : fallback;
}

/** The bench's settings for one size; M and efConstruction default to the measured store's own. */
function configFor(size: number, defaults: Pick<HnswParams, 'm' | 'efConstruction'> = DEFAULT_HNSW_PARAMS): BenchConfig {
  return {
    size,
    dimension: envList('IRIS_BENCH_DIM', [256])[0]!,
    m: envList('IRIS_BENCH_M', [defaults.m])[0]!,
    efConstruction: envList('IRIS_BENCH_EFC', [defaults.efConstruction])[0]!,
    seed: 1,
    queries: envList('IRIS_BENCH_QUERIES', [200])[0]!,
    efValues: envList('IRIS_BENCH_EF', [32, 64, 128, 192, 256, 384]),
  };
}

function cacheDir(cfg: BenchConfig): string {
  return path.join(CACHE_ROOT, `n${cfg.size}-d${cfg.dimension}-m${cfg.m}-efc${cfg.efConstruction}-s${cfg.seed}-g${SYNTHETIC_VERSION}`);
}

const EMBEDDING_VERSION = `synthetic-v${SYNTHETIC_VERSION}`;

/** The pgvector column type measured: `vector` (float32) or `halfvec` (float16). */
function pgType(): 'vector' | 'halfvec' {
  return process.env.IRIS_BENCH_PG_TYPE === 'halfvec' ? 'halfvec' : 'vector';
}

function usearchConfigFor(size: number): UsearchConfig {
  return { ...configFor(size, DEFAULT_USEARCH_PARAMS), rescoreValues: envList('IRIS_BENCH_RESCORE', [0, 40, 90], true) };
}

function usearchCacheDir(cfg: UsearchConfig): string {
  return path.join(CACHE_ROOT, `usearch-store-n${cfg.size}-d${cfg.dimension}-m${cfg.m}-efc${cfg.efConstruction}-s${cfg.seed}-g${SYNTHETIC_VERSION}`);
}

export default async function run(): Promise<void> {
  const stores = (process.env.IRIS_BENCH_STORES ?? 'hnsw,pgvector').split(',').map((s) => s.trim());
  const reports: [BenchConfig, MeasureReport][] = [];
  for (const size of stores.includes('hnsw') ? envList('IRIS_BENCH_SIZES', [100_000, 1_000_000]) : []) {
    const cfg = configFor(size);
    if (!existsSync(path.join(cacheDir(cfg), 'bench-build.json'))) await runChild('build', cfg);
    else console.error(`vector-store bench: using cached index ${cacheDir(cfg)}`);
    reports.push([cfg, (await runChild('measure', cfg)) as MeasureReport]);
  }
  if (reports.length) printHnsw(reports);
  const usearchReports: [UsearchConfig, UsearchReport][] = [];
  for (const size of stores.includes('usearch') ? envList('IRIS_BENCH_SIZES', [100_000, 1_000_000]) : []) {
    const cfg = usearchConfigFor(size);
    if (!existsSync(path.join(usearchCacheDir(cfg), 'bench-build.json'))) await runChild('usearch-build', cfg);
    else console.error(`vector-store bench: using cached index ${usearchCacheDir(cfg)}`);
    usearchReports.push([cfg, (await runChild('usearch-measure', cfg)) as UsearchReport]);
    printQuantised(reports, usearchReports.slice(-1));
  }
  const pgReports: [BenchConfig, PgReport, PgVectorEngine][] = [];
  const engines = (process.env.IRIS_BENCH_PG_ENGINES ?? 'native,pglite').split(',').map((s) => s.trim()).filter((s): s is PgVectorEngine => s === 'native' || s === 'pglite');
  for (const engine of stores.includes('pgvector') ? engines : []) {
    for (const size of envList('IRIS_BENCH_PG_SIZES', [100_000, 1_000_000])) {
      const cfg = { ...configFor(size), efValues: envList('IRIS_BENCH_PG_EF', [64, 128, 256]) };
      const type = pgType();
      const liveInserts = Math.min(size, envList('IRIS_BENCH_PG_LIVE', [2000])[0]!);
      const report = await runPgVectorBench({ ...cfg, type, liveInserts, embeddingVersion: EMBEDDING_VERSION, engine });
      pgReports.push([cfg, report, engine]);
      // Each size as soon as it is measured: a 1M run takes long and may be cut short.
      printSideBySide(reports, [[cfg, report, engine]]);
    }
  }
  if (pgReports.length > 1) printSideBySide(reports, pgReports);
}

function printHnsw(reports: [BenchConfig, MeasureReport][]): void {
  console.log('### Build and memory (one store loaded from disk in a fresh process)\n');
  printTable(
    ['vectors', 'dim', 'M', 'efC', 'build s', 'inserts/s', 'load s', 'RSS MB', 'peak RSS while loading MB', 'RSS − baseline MB', 'JS heap MB', 'JS typed arrays MB', 'estimate MB', 'files MB', '≤ 2 GB'],
    reports.map(([c, r]) => [
      c.size, c.dimension, c.m, c.efConstruction, r.build.buildSeconds, Math.round(r.build.insertsPerSecond), r.loadSeconds,
      Math.round(r.rssMB), Math.round(r.peakLoadRssMB), Math.round(r.rssMB - r.baselineRssMB), Math.round(r.heapUsedMB), Math.round(r.arrayBuffersMB),
      Math.round(r.estimatedMB), Math.round(r.indexFileMB + r.sidecarMB), Math.max(r.rssMB, r.peakLoadRssMB) <= 2048 ? 'yes' : 'NO',
    ]),
  );
  console.log(`### Unfiltered queries, k=${K} (queries near a data point; recall against the exact scan)\n`);
  printTable(
    ['vectors', 'search', 'p50 ms', 'p99 ms', `recall@${K}`, 'QPS (1 thread)'],
    reports.flatMap(([c, r]) => r.unfiltered.map((row) => [c.size, row.label, row.p50, row.p99, row.recall, Math.round(row.qps)])),
  );
  console.log(`### Tag-filtered queries, k=${K} (tags independent of content)\n`);
  printTable(
    ['vectors', 'filter', 'matching', 'strategy', 'p50 ms', 'p99 ms', `recall@${K}`],
    reports.flatMap(([c, r]) => r.filtered.map((row) => [c.size, row.filter, row.matches, row.label, row.p50, row.p99, row.recall])),
  );
}

type ChildRole = 'build' | 'measure' | 'usearch-build' | 'usearch-measure';

function runChild(role: ChildRole, cfg: BenchConfig): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, IRIS_VECTOR_BENCH_ROLE: role, IRIS_VECTOR_BENCH_CONFIG: JSON.stringify(cfg) },
      execArgv: [...process.execArgv, '--expose-gc', '--max-old-space-size=8192'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: unknown;
    child.on('message', (message) => (result = message));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && result !== undefined ? resolve(result) : reject(new Error(`${role} child exited with ${code}`))));
  });
}

function items(gen: SyntheticVectors, start: number, end: number): VectorItem[] {
  const out: VectorItem[] = [];
  for (let i = start; i < end; i++) out.push({ id: i + 1, vector: gen.vector(i), tags: gen.tags(i) });
  return out;
}

function rssMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MB;
}

async function buildChild(cfg: BenchConfig): Promise<BuildReport> {
  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const target = cacheDir(cfg);
  const building = `${target}.building`;
  await rm(building, { recursive: true, force: true });
  const store = new HnswVectorStore({
    dimension: cfg.dimension,
    embeddingVersion: EMBEDDING_VERSION,
    dir: building,
    params: { m: cfg.m, efConstruction: cfg.efConstruction, initialCapacity: cfg.size },
  });
  const started = performance.now();
  let lastReport = started;
  const chunk = 5000;
  for (let i = 0; i < cfg.size; i += chunk) {
    store.upsert(items(gen, i, Math.min(cfg.size, i + chunk)));
    const now = performance.now();
    if (now - lastReport > 15_000) {
      lastReport = now;
      const done = Math.min(cfg.size, i + chunk);
      const rate = done / ((now - started) / 1000);
      console.error(
        `vector-store bench: building ${cfg.size} × ${cfg.dimension}: ${done} (${Math.round((100 * done) / cfg.size)}%), ` +
          `${Math.round(rate)}/s, about ${Math.round((cfg.size - done) / rate)} s left`,
      );
    }
  }
  const buildSeconds = (performance.now() - started) / 1000;
  const report: BuildReport = { buildSeconds, insertsPerSecond: cfg.size / buildSeconds, rssAfterBuildMB: rssMB() };
  await store.save();
  await writeFile(path.join(building, 'bench-build.json'), JSON.stringify(report, null, 2));
  await rm(target, { recursive: true, force: true });
  await mkdir(path.dirname(target), { recursive: true });
  await rename(building, target);
  console.error(`vector-store bench: built ${cfg.size} in ${buildSeconds.toFixed(0)} s, cached in ${target}`);
  return report;
}

function timed(store: HnswVectorStore | ExactVectorStore, queries: Float32Array[], truth: number[][], filter: string | null, options: SearchOptions): LatencyRow {
  const parsed = parseTagFilter(filter ?? undefined);
  for (const q of queries.slice(0, 20)) store.search(q, K, parsed, options);
  const times: number[] = [];
  let found = 0;
  let wanted = 0;
  queries.forEach((q, i) => {
    const t = performance.now();
    const hits = store.search(q, K, parsed, options);
    times.push(performance.now() - t);
    const expected = new Set(truth[i]);
    wanted += expected.size;
    found += hits.filter((h) => expected.has(h.id)).length;
  });
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { label: '', p50: median(times), p99: percentile(times, 99), recall: wanted ? found / wanted : 1, qps: 1000 / mean };
}

async function measureChild(cfg: BenchConfig): Promise<MeasureReport> {
  const dir = cacheDir(cfg);
  const build = JSON.parse(await readFile(path.join(dir, 'bench-build.json'), 'utf8')) as BuildReport;
  const baselineRssMB = rssMB();
  const store = new HnswVectorStore({ dimension: cfg.dimension, embeddingVersion: EMBEDDING_VERSION, dir });
  let t = performance.now();
  const loaded = await store.load();
  if (loaded.status !== 'loaded') throw new Error(`cached index did not load: ${JSON.stringify(loaded)}`);
  const loadSeconds = (performance.now() - t) / 1000;
  const afterLoad = rssMB();
  const peakLoadRssMB = process.resourceUsage().maxRSS / 1024;
  const memory = process.memoryUsage();
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { files: { index: { bytes: number }; sidecar: { bytes: number } } };
  console.error(`vector-store bench: ${cfg.size} loaded in ${loadSeconds.toFixed(1)} s, RSS ${Math.round(afterLoad)} MB; building the exact reference`);

  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const exact = new ExactVectorStore({ dimension: cfg.dimension, embeddingVersion: EMBEDDING_VERSION });
  t = performance.now();
  for (let i = 0; i < cfg.size; i += 10_000) exact.upsert(items(gen, i, Math.min(cfg.size, i + 10_000)));
  const exactBuildSeconds = (performance.now() - t) / 1000;

  const queries = Array.from({ length: cfg.queries }, (_, q) => gen.query(hash(cfg.seed, q, 99) % cfg.size, q));
  const exactTimes: number[] = [];
  const truth = queries.map((q) => {
    const started = performance.now();
    const ids = exact.search(q, K).map((h) => h.id);
    exactTimes.push(performance.now() - started);
    return ids;
  });
  const unfiltered: LatencyRow[] = [
    { label: 'exact scan', p50: median(exactTimes), p99: percentile(exactTimes, 99), recall: 1, qps: 1000 / median(exactTimes) },
  ];
  for (const ef of cfg.efValues) {
    unfiltered.push({ ...timed(store, queries, truth, null, { ef }), label: `hnsw ef=${ef}` });
    console.error(`vector-store bench: ${cfg.size} ef=${ef} done`);
  }

  const filtered: MeasureReport['filtered'] = [];
  for (const filter of ['sel1', 'sel20']) {
    const parsed = parseTagFilter(filter)!;
    const filterTruth = queries.map((q) => exact.search(q, K, parsed).map((h) => h.id));
    const plan = store.explain(parsed, K);
    const variants: [string, SearchOptions][] = [
      [`auto (→ ${plan.strategy})`, {}],
      ['graph walk', { strategy: 'graph' }],
      [`int8 scan + rescore ${DEFAULT_HNSW_PARAMS.rescore}`, { strategy: 'scan' }],
      ['int8 scan, no rescore', { strategy: 'scan', rescore: 0 }],
    ];
    for (const [label, options] of variants) {
      filtered.push({ ...timed(store, queries, filterTruth, filter, options), label, filter, matches: plan.matches, planned: plan.strategy });
    }
    const exactFiltered = timed(exact, queries, filterTruth, filter, {});
    filtered.push({ ...exactFiltered, label: 'exact store (float32)', filter, matches: plan.matches, planned: plan.strategy });
    console.error(`vector-store bench: ${cfg.size} filter ${filter} done`);
  }

  const stats = store.stats();
  await Promise.all([store.close(), exact.close()]);
  return {
    build,
    loadSeconds,
    baselineRssMB,
    rssMB: afterLoad,
    peakLoadRssMB,
    heapUsedMB: memory.heapUsed / MB,
    arrayBuffersMB: memory.arrayBuffers / MB,
    estimatedMB: stats.estimatedBytes / MB,
    indexFileMB: manifest.files.index.bytes / MB,
    sidecarMB: manifest.files.sidecar.bytes / MB,
    exactBuildSeconds,
    unfiltered,
    filtered,
  };
}

if (ROLE) {
  const cfg = JSON.parse(process.env.IRIS_VECTOR_BENCH_CONFIG ?? '{}') as BenchConfig;
  const roles: Record<ChildRole, () => Promise<unknown>> = {
    build: () => buildChild(cfg),
    measure: () => measureChild(cfg),
    'usearch-build': () => buildUsearch(cfg as UsearchConfig, usearchCacheDir(cfg as UsearchConfig)),
    'usearch-measure': () => measureUsearch(cfg as UsearchConfig, usearchCacheDir(cfg as UsearchConfig)),
  };
  const work = roles[ROLE as ChildRole]();
  work.then(
    (result) => process.send!(result, () => process.disconnect()),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** The quantised graph (usearch, int8) beside hnswlib at the same size: memory, then latency and recall. */
function printQuantised(hnsw: [BenchConfig, MeasureReport][], quantised: [UsearchConfig, UsearchReport][]): void {
  console.log('### usearch store (int8 graph, float32 re-scoring read from disk) beside hnswlib (float32 graph + int8 copy)\n');
  const memory: (string | number)[][] = [];
  const queries: (string | number)[][] = [];
  for (const [c, u] of quantised) {
    const h = hnsw.find(([hc]) => hc.size === c.size)?.[1];
    if (h) {
      memory.push([c.size, 'hnswlib (float32 graph + int8 copy)', h.build.buildSeconds.toFixed(0), Math.round(h.build.insertsPerSecond), h.loadSeconds.toFixed(1), Math.round(h.rssMB), Math.round(h.rssMB - h.baselineRssMB), Math.round(((h.rssMB - h.baselineRssMB) * MB) / c.size), Math.round(h.indexFileMB + h.sidecarMB)]);
      for (const row of h.unfiltered) queries.push([c.size, row.label, row.p50, row.p99, row.recall]);
    }
    memory.push([c.size, `usearch store (int8 graph; float32 file read per candidate; estimate ${Math.round(u.estimatedMB)} MB)`, u.build.buildSeconds.toFixed(0), `${Math.round(u.build.insertsPerSecond)}${u.build.longestStallMs === undefined ? '' : ` (longest event-loop stall ${Math.round(u.build.longestStallMs)} ms)`}`, u.loadSeconds.toFixed(1), Math.round(u.rssMB), Math.round(u.rssMB - u.baselineRssMB), Math.round(((u.rssMB - u.baselineRssMB) * MB) / c.size), `${Math.round(u.indexFileMB)} + ${Math.round(u.floatFileMB)} sidecar`]);
    queries.push([c.size, `${u.exact.label} (usearch run)`, u.exact.p50, u.exact.p99, 1]);
    for (const row of u.rows) queries.push([c.size, row.label, row.p50, row.p99, row.recall]);
  }
  printTable(['vectors', 'store', 'build s', 'inserts/s', 'load s', 'RSS MB', 'RSS − baseline MB', 'resident bytes per vector', 'files MB'], memory);
  printTable(['vectors', 'search (k = 10, unfiltered)', 'p50 ms', 'p99 ms', `recall@${K}`], queries);
}

/** HNSW and pgvector on the same vectors and queries: the HNSW rows at the same ef and filters. */
function printSideBySide(hnsw: [BenchConfig, MeasureReport][], pg: [BenchConfig, PgReport, PgVectorEngine][]): void {
  console.log('### HNSW (in process) and pgvector (native PostgreSQL 15, and PGlite: one WebAssembly thread) side by side\n');
  const build: (string | number)[][] = [];
  const queries: (string | number)[][] = [];
  const shown = new Set<number>();
  for (const [c, p, engine] of pg) {
    const h = hnsw.find(([hc]) => hc.size === c.size)?.[1];
    if (h && !shown.has(c.size)) {
      shown.add(c.size);
      build.push([
        c.size, 'hnsw (in process)', Math.round(h.build.insertsPerSecond), h.build.buildSeconds.toFixed(0), `${Math.round(h.rssMB - h.baselineRssMB)} (RSS ${Math.round(h.rssMB)})`,
        Math.round(h.indexFileMB + h.sidecarMB), Math.round(((h.indexFileMB + h.sidecarMB) * MB) / c.size), 'files on disk', '—',
      ]);
      for (const ef of c.efValues) {
        const row = h.unfiltered.find((r) => r.label.startsWith(`hnsw ef=${ef}`));
        if (row) queries.push([c.size, 'hnsw', `ef=${ef}`, '—', 'graph', row.p50, row.p99, row.recall, K]);
      }
      for (const row of h.filtered.filter((r) => r.label.startsWith('auto'))) queries.push([c.size, 'hnsw', 'ef=256', row.filter, row.planned, row.p50, row.p99, row.recall, K]);
    }
    build.push([
      c.size, `pgvector (${engine}, ${pgType()})`, Math.round(p.liveInsertsPerSecond),
      `${(p.bulkRowsSeconds + p.bulkIndexSeconds).toFixed(0)} (rows ${p.bulkRowsSeconds.toFixed(0)} + index ${p.bulkIndexSeconds.toFixed(0)})`,
      `${Math.round(p.rssMB - p.baselineRssMB)} (RSS ${Math.round(p.rssMB)})`, Math.round(p.databaseMB), Math.round((p.databaseMB * MB) / c.size),
      `database (HNSW index ${Math.round(p.hnswIndexMB)})`, p.serverRssMB === null ? '— (native)' : Math.round(p.serverRssMB),
    ]);
    for (const row of p.rows) queries.push([c.size, `pgvector (${engine}, ${pgType()})`, row.label.replace('pgvector ', ''), row.filter ?? '—', row.plan, row.p50, row.p99, row.recall, row.minHits]);
  }
  printTable(['vectors', 'store', 'live inserts/s', 'full build s', 'backend RSS − baseline MB', 'index MB', 'bytes per vector', 'where', 'database server RSS MB'], build);
  printTable(['vectors', 'store', 'search', 'filter', 'plan', 'p50 ms', 'p99 ms', `recall@${K}`, 'fewest hits of k'], queries);
  printExtrapolation(pg.at(-1)!);
}

/**
 * What the measured bytes per vector mean at 10M and 100M. Storage scales linearly (rows + HNSW graph);
 * query cost grows about with log N in an HNSW graph as long as the graph stays in RAM, which is what the
 * published native pgvector figures show (sources in docs/vector-store.md).
 */
function printExtrapolation([c, p]: [BenchConfig, PgReport, PgVectorEngine]): void {
  const perVector = (p.databaseMB * MB) / c.size;
  const graphPerVector = (p.hnswIndexMB * MB) / c.size;
  const GB = 1024 ** 3;
  const rows = [10_000_000, 100_000_000].map((n) => {
    const total = (perVector * n) / GB;
    const graph = (graphPerVector * n) / GB;
    // A worker keeps its shards' graphs (and the rows it rescans) in RAM: 64 GB workers with ~40 GB for them.
    const workers = Math.max(1, Math.ceil(total / 40));
    return [n.toLocaleString('en'), Math.round(total), Math.round(graph), workers, workers === 1 ? 'one server (replicas for query load)' : `Citus, ${workers} workers of 64 GB (shards by service)`];
  });
  console.log(`Extrapolation from ${c.size.toLocaleString('en')} vectors of ${c.dimension} dims (${Math.round(perVector)} bytes per vector in the database, of which HNSW graph ${Math.round(graphPerVector)}):\n`);
  printTable(['vectors', 'database GB', 'of which HNSW graphs GB', 'servers to hold it in RAM', 'layout'], rows);
  console.log(
    'PGlite is PostgreSQL compiled to WebAssembly on one thread: its latencies and insert rates are a lower bound for the native ' +
      'server measured beside it; bytes per vector are those of PostgreSQL and pgvector themselves on both.\n',
  );
}
