/**
 * The quantised candidate of the vector-store bench: the usearch store (UsearchVectorStore: an int8 usearch
 * graph in memory, the float32 vectors in a file read with pread only for the candidates being re-scored),
 * measured through the VectorStore interface as a backend uses it. Run through vector-store.bench.ts
 * (`IRIS_BENCH_STORES=usearch`), which forks the build and measure roles here so the memory figures are those
 * of a process holding one store loaded from its saved files.
 *
 * usearch fixes its search expansion when the index object is made, so each ef is measured on a fresh load of
 * the same files (a store with that efSearch).
 */
import { stat } from 'node:fs/promises';
import { readFile, rm, writeFile, rename, readdir } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { median, percentile } from '../../scripts/table.js';
import { ExactVectorStore } from '../src/vectors/exact-vector-store.js';
import { UsearchVectorStore } from '../src/vectors/usearch-vector-store.js';
import type { VectorItem } from '../src/vectors/vector-store.js';
import { hash, SyntheticVectors } from '../test/support/synthetic-vectors.js';

export interface UsearchConfig {
  size: number;
  dimension: number;
  m: number;
  efConstruction: number;
  seed: number;
  queries: number;
  efValues: number[];
  /** Candidates beyond k re-scored with float32 vectors read from the file. */
  rescoreValues: number[];
}

export interface UsearchBuild {
  buildSeconds: number;
  insertsPerSecond: number;
  /** The longest the event loop waited during the build (the store's synchronous insert chunks), ms. */
  longestStallMs?: number;
}

export interface UsearchRow {
  label: string;
  p50: number;
  p99: number;
  recall: number;
}

export interface UsearchReport {
  build: UsearchBuild;
  loadSeconds: number;
  baselineRssMB: number;
  /** RSS with the store loaded, before the exact reference is built. */
  rssMB: number;
  /** The store's own estimate (stats().estimatedBytes), which IRIS_INDEX_MEMORY_MB budgets. */
  estimatedMB: number;
  indexFileMB: number;
  /** The saved sidecar: ids, tags and the float32 vectors. */
  floatFileMB: number;
  exact: UsearchRow;
  rows: UsearchRow[];
}

const K = 10;
const MB = 1024 * 1024;
const BUILD_FILE = 'bench-build.json';
const BUILD_BATCH = 5000;
const GENERATE_SLICE = 200;

function rssMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MB;
}

function storeOf(cfg: UsearchConfig, dir: string, efSearch: number): UsearchVectorStore {
  return new UsearchVectorStore({
    dimension: cfg.dimension,
    embeddingVersion: 'bench',
    dir,
    params: { m: cfg.m, efConstruction: cfg.efConstruction, efSearch },
  });
}

/** Builds the store and saves it into `target` (via a `.building` directory renamed at the end). */
export async function buildUsearch(cfg: UsearchConfig, target: string): Promise<UsearchBuild> {
  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const building = `${target}.building`;
  await rm(building, { recursive: true, force: true });
  const store = storeOf(cfg, building, 64);
  const started = performance.now();
  let lastReport = started;
  async function* source(): AsyncGenerator<VectorItem[]> {
    for (let start = 0; start < cfg.size; start += BUILD_BATCH) {
      const batch: VectorItem[] = [];
      for (let i = start; i < Math.min(cfg.size, start + BUILD_BATCH); i++) {
        batch.push({ id: i + 1, vector: gen.vector(i), tags: gen.tags(i) });
        // Generating a batch takes about half a second: let the event loop run so its stall measures the store.
        if (i % GENERATE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      yield batch;
      const now = performance.now();
      if (now - lastReport > 15_000) {
        lastReport = now;
        const done = start + batch.length;
        console.error(`vector-store bench: usearch store building ${cfg.size}: ${done} (${Math.round((100 * done) / cfg.size)}%), ${Math.round(done / ((now - started) / 1000))}/s`);
      }
    }
  }
  const stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  await store.rebuild(source(), 1);
  stalls.disable();
  const buildSeconds = (performance.now() - started) / 1000;
  await store.save();
  await store.close();
  const report: UsearchBuild = { buildSeconds, insertsPerSecond: cfg.size / buildSeconds, longestStallMs: stalls.max / 1e6 };
  await writeFile(path.join(building, BUILD_FILE), JSON.stringify(report, null, 2));
  await rm(target, { recursive: true, force: true });
  await rename(building, target);
  console.error(`vector-store bench: usearch store built ${cfg.size} in ${buildSeconds.toFixed(0)} s, cached in ${target}`);
  return report;
}

export async function measureUsearch(cfg: UsearchConfig, dir: string): Promise<UsearchReport> {
  const build = JSON.parse(await readFile(path.join(dir, BUILD_FILE), 'utf8')) as UsearchBuild;
  const baselineRssMB = rssMB();
  const t = performance.now();
  let store = storeOf(cfg, dir, cfg.efValues[0]!);
  const loaded = await store.load();
  if (loaded.status !== 'loaded' || store.size !== cfg.size) throw new Error(`usearch store did not load: ${JSON.stringify(loaded)}`);
  const loadSeconds = (performance.now() - t) / 1000;
  const loadedRssMB = rssMB();
  const estimatedMB = store.stats().estimatedBytes / MB;
  console.error(`vector-store bench: usearch store ${cfg.size} loaded in ${loadSeconds.toFixed(1)} s, RSS ${Math.round(loadedRssMB)} MB; building the exact reference`);

  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const exact = new ExactVectorStore({ dimension: cfg.dimension, embeddingVersion: 'bench' });
  for (let i = 0; i < cfg.size; i += 10_000) {
    const batch = [];
    for (let j = i; j < Math.min(cfg.size, i + 10_000); j++) batch.push({ id: j + 1, vector: gen.vector(j), tags: [] });
    exact.upsert(batch);
  }
  const queries = Array.from({ length: cfg.queries }, (_, q) => gen.query(hash(cfg.seed, q, 99) % cfg.size, q));
  const exactTimes: number[] = [];
  const truth = queries.map((q) => {
    const started = performance.now();
    const ids = exact.search(q, K).map((h) => h.id);
    exactTimes.push(performance.now() - started);
    return new Set(ids);
  });
  await exact.close();
  const exactRow = { label: 'exact scan (float32)', p50: median(exactTimes), p99: percentile(exactTimes, 99), recall: 1 };

  // Re-scoring assumes the float vectors sit in the page cache (as on a server with room for them): one pass
  // over the queries first, so the first rows measured do not pay disk reads the later ones are spared.
  const rows: UsearchRow[] = [];
  for (const ef of cfg.efValues) {
    if (ef !== cfg.efValues[0]) {
      await store.close();
      store = storeOf(cfg, dir, ef);
      await store.load();
    }
    for (const extra of cfg.rescoreValues) {
      for (const q of queries) store.search(q, K, null, { rescore: extra });
      const times: number[] = [];
      let hits = 0;
      queries.forEach((q, i) => {
        const started = performance.now();
        const ids = store.search(q, K, null, { rescore: extra }).map((h) => h.id);
        times.push(performance.now() - started);
        hits += ids.filter((id) => truth[i]!.has(id)).length;
      });
      rows.push({ label: `usearch store ef=${ef}, float re-score of ${K + extra} (pread)`, p50: median(times), p99: percentile(times, 99), recall: hits / (K * queries.length) });
    }
    console.error(`vector-store bench: usearch store ${cfg.size} ef=${ef} done`);
  }
  await store.close();
  const files = await readdir(dir);
  const sizeOf = async (prefix: string) => (await stat(path.join(dir, files.find((f) => f.startsWith(prefix))!))).size / MB;
  return {
    build,
    loadSeconds,
    baselineRssMB,
    rssMB: loadedRssMB,
    estimatedMB,
    indexFileMB: await sizeOf('index-'),
    floatFileMB: await sizeOf('sidecar-'),
    exact: exactRow,
    rows,
  };
}
