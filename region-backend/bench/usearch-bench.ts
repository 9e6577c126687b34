/**
 * The quantised-graph candidate of the vector-store bench: a usearch HNSW graph holding int8 copies of the
 * vectors (cosine), with the float32 vectors in a flat file beside it that is read with pread only for the
 * candidates being re-scored. Run through vector-store.bench.ts (`IRIS_BENCH_STORES=usearch`), which forks the
 * build and measure roles here so the memory figures are those of a process holding one loaded index.
 *
 * The vectors reach usearch as int8 codes scaled per vector by its largest component (as Int8Slab does): given
 * floats, usearch itself would scale each by its L2 norm and truncate, which leaves a 256-dim unit vector about
 * ±8 levels of the ±127 range. Cosine ignores the scale, so the codes are compared as they are.
 *
 * The Node binding of usearch has no filter predicate and fixes the search expansion when the index object is
 * made, so each ef is measured on a fresh load of the same file, and tag-filtered queries are not measured.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import usearch from 'usearch';
import { median, percentile } from '../../scripts/table.js';
import { ExactVectorStore } from '../src/vectors/exact-vector-store.js';
import { hash, SyntheticVectors } from '../test/support/synthetic-vectors.js';

export interface UsearchConfig {
  size: number;
  dimension: number;
  m: number;
  efConstruction: number;
  seed: number;
  queries: number;
  efValues: number[];
  /** Candidates re-scored with float32 vectors read from disk (0: none). */
  rescoreValues: number[];
}

export interface UsearchBuild {
  buildSeconds: number;
  insertsPerSecond: number;
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
  /** RSS with the index loaded, before the exact reference is built. */
  rssMB: number;
  indexFileMB: number;
  floatFileMB: number;
  exact: UsearchRow;
  rows: UsearchRow[];
}

const K = 10;
const MB = 1024 * 1024;
const INDEX_FILE = 'graph.usearch';
const FLOAT_FILE = 'vectors.f32';
const BUILD_FILE = 'bench-build.json';
const BUILD_BATCH = 5000;

function newIndex(cfg: UsearchConfig, ef: number): InstanceType<typeof usearch.Index> {
  return new usearch.Index({
    dimensions: cfg.dimension,
    metric: usearch.MetricKind.Cos,
    quantization: usearch.ScalarKind.I8,
    connectivity: cfg.m,
    expansion_add: cfg.efConstruction,
    expansion_search: ef,
    multi: false,
  });
}

function rssMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MB;
}

/** Builds the graph and the float file into `target` (via a `.building` directory renamed at the end). */
export async function buildUsearch(cfg: UsearchConfig, target: string): Promise<UsearchBuild> {
  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const building = `${target}.building`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  const index = newIndex(cfg, 64);
  const floats = openSync(path.join(building, FLOAT_FILE), 'w');
  const started = performance.now();
  let lastReport = started;
  try {
    for (let start = 0; start < cfg.size; start += BUILD_BATCH) {
      const end = Math.min(cfg.size, start + BUILD_BATCH);
      const matrix = new Float32Array((end - start) * cfg.dimension);
      const codes = new Int8Array(matrix.length);
      const keys = new BigUint64Array(end - start);
      for (let i = start; i < end; i++) {
        const at = (i - start) * cfg.dimension;
        matrix.set(gen.vector(i), at);
        quantise(matrix.subarray(at, at + cfg.dimension), codes.subarray(at, at + cfg.dimension));
        keys[i - start] = BigInt(i + 1);
      }
      index.add(keys, codes, 0);
      transfer(floats, matrix, start * cfg.dimension * 4, 'write');
      const now = performance.now();
      if (now - lastReport > 15_000) {
        lastReport = now;
        const rate = end / ((now - started) / 1000);
        console.error(`vector-store bench: usearch building ${cfg.size}: ${end} (${Math.round((100 * end) / cfg.size)}%), ${Math.round(rate)}/s`);
      }
    }
  } finally {
    closeSync(floats);
  }
  const buildSeconds = (performance.now() - started) / 1000;
  index.save(path.join(building, INDEX_FILE));
  const report: UsearchBuild = { buildSeconds, insertsPerSecond: cfg.size / buildSeconds };
  await writeFile(path.join(building, BUILD_FILE), JSON.stringify(report, null, 2));
  await rm(target, { recursive: true, force: true });
  await rename(building, target);
  console.error(`vector-store bench: usearch built ${cfg.size} in ${buildSeconds.toFixed(0)} s, cached in ${target}`);
  return report;
}

/** int8 codes of a vector scaled by its largest component: code = round(127 · x / max|x|). */
function quantise(vector: Float32Array, out: Int8Array): Int8Array {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? 127 / max : 0;
  for (let d = 0; d < vector.length; d++) out[d] = Math.round(vector[d]! * scale);
  return out;
}

/** Reads or writes a whole typed array at a byte offset of an open file. */
function transfer(fd: number, data: Float32Array, position: number, mode: 'read' | 'write'): void {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  for (let done = 0; done < bytes.length; ) {
    const n = mode === 'read' ? readSync(fd, bytes, done, bytes.length - done, position + done) : writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (n <= 0) throw new Error(`short ${mode} at ${position + done}`);
    done += n;
  }
}

/** Re-scores candidate ids (1-based, slot = id − 1) with float32 vectors read from the flat file. */
function rescore(fd: number, dimension: number, query: Float32Array, ids: BigUint64Array, count: number, scratch: Float32Array): number[] {
  const scored: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const id = Number(ids[i]!);
    transfer(fd, scratch, (id - 1) * dimension * 4, 'read');
    let dot = 0;
    for (let d = 0; d < dimension; d++) dot += query[d]! * scratch[d]!;
    scored.push([dot, id]);
  }
  scored.sort((a, b) => b[0] - a[0]);
  return scored.slice(0, K).map(([, id]) => id);
}

export async function measureUsearch(cfg: UsearchConfig, dir: string): Promise<UsearchReport> {
  const build = JSON.parse(await readFile(path.join(dir, BUILD_FILE), 'utf8')) as UsearchBuild;
  const indexPath = path.join(dir, INDEX_FILE);
  const baselineRssMB = rssMB();
  const t = performance.now();
  let index = newIndex(cfg, cfg.efValues[0]!);
  index.load(indexPath);
  const loadSeconds = (performance.now() - t) / 1000;
  const loadedRssMB = rssMB();
  if (index.size() !== cfg.size) throw new Error(`usearch index holds ${index.size()} vectors, expected ${cfg.size}`);
  console.error(`vector-store bench: usearch ${cfg.size} loaded in ${loadSeconds.toFixed(1)} s, RSS ${Math.round(loadedRssMB)} MB; building the exact reference`);

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

  const fd = openSync(path.join(dir, FLOAT_FILE), 'r');
  // Re-scoring assumes the float file sits in the page cache (as on a server with room for it); read it once
  // so the first rows measured do not pay the disk reads the later ones are spared.
  const chunk = new Float32Array(MB / 4);
  for (let at = 0; at < cfg.size * cfg.dimension * 4; at += MB) transfer(fd, chunk.subarray(0, Math.min(chunk.length, (cfg.size * cfg.dimension * 4 - at) / 4)), at, 'read');
  const scratch = new Float32Array(cfg.dimension);
  const rows: UsearchRow[] = [];
  try {
    for (const ef of cfg.efValues) {
      if (ef !== cfg.efValues[0]) {
        index = newIndex(cfg, ef);
        index.load(indexPath);
      }
      for (const extra of cfg.rescoreValues) {
        const count = K + extra;
        const ask = (q: Float32Array): number[] => {
          const found = index.search(quantise(q, new Int8Array(cfg.dimension)), count, 1);
          if (extra === 0) return Array.from(found.keys, Number);
          return rescore(fd, cfg.dimension, q, found.keys, found.keys.length, scratch);
        };
        for (const q of queries.slice(0, 20)) ask(q);
        const times: number[] = [];
        let hits = 0;
        queries.forEach((q, i) => {
          const started = performance.now();
          const ids = ask(q);
          times.push(performance.now() - started);
          hits += ids.filter((id) => truth[i]!.has(id)).length;
        });
        const label = extra === 0 ? `usearch i8 ef=${ef}` : `usearch i8 ef=${ef} + float re-score of ${count} (pread)`;
        rows.push({ label, p50: median(times), p99: percentile(times, 99), recall: hits / (K * queries.length) });
      }
      console.error(`vector-store bench: usearch ${cfg.size} ef=${ef} done`);
    }
  } finally {
    closeSync(fd);
  }
  return {
    build,
    loadSeconds,
    baselineRssMB,
    rssMB: loadedRssMB,
    indexFileMB: (await stat(indexPath)).size / MB,
    floatFileMB: (await stat(path.join(dir, FLOAT_FILE))).size / MB,
    exact: exactRow,
    rows,
  };
}
