/**
 * The pgvector half of the vector-store benchmark, on the same synthetic vectors as the HNSW half.
 *
 * Three processes: the bench parent; a database server — a native PostgreSQL 15 with pgvector 0.8
 * (scripts/native-services.sh; shared_buffers 2 GB) or PGlite (pgvector 0.8 compiled to WebAssembly, one
 * thread) served over the PostgreSQL wire protocol; and a "backend" process that talks to it with the `pg` client
 * through `PgVectorStore`, whose memory is what a backend process would hold (nothing of the index).
 *
 * Measured: live inserts through `upsert` into an HNSW-indexed partition (the path of every indexed change
 * and of a rebuild), a bulk build of the full size (rows first, then CREATE INDEX, then ATTACH PARTITION: how
 * a large service is moved to pgvector while the old store serves), query latency and recall@10 against the
 * exact scan, unfiltered and with 1% / 20% tag filters (iterative index scans), bytes in the database.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { median, percentile } from '../../scripts/table.js';
import { ExactVectorStore } from '../src/vectors/exact-vector-store.js';
import { partitionTable, vectorTable } from '../src/vectors/pgvector-schema.js';
import { PgVectorStore } from '../src/vectors/pgvector-vector-store.js';
import { SyntheticVectors, hash } from '../test/support/synthetic-vectors.js';
import { parseTagFilter } from '../src/vectors/tag-filter.js';
import type { VectorItem } from '../src/vectors/vector-store.js';
import type { PgVectorEngine } from '../test/support/pgvector-server.js';

export interface PgBenchConfig {
  size: number;
  dimension: number;
  m: number;
  efConstruction: number;
  seed: number;
  queries: number;
  efValues: number[];
  /** Items inserted one batch at a time through the store (HNSW maintained on every insert). */
  liveInserts: number;
  type: 'vector' | 'halfvec';
  embeddingVersion: string;
  engine: PgVectorEngine;
}

export interface PgRow {
  label: string;
  filter: string | null;
  p50: number;
  p99: number;
  recall: number;
  minHits: number;
  /** How PostgreSQL runs the query: HNSW index scan, or an exact scan. */
  plan: string;
}

export interface PgReport {
  liveInsertsPerSecond: number;
  bulkRowsSeconds: number;
  bulkIndexSeconds: number;
  baselineRssMB: number;
  rssMB: number;
  databaseMB: number;
  heapMB: number;
  hnswIndexMB: number;
  /** Resident memory of the PGlite server process; null for a native server (many processes, shared memory). */
  serverRssMB: number | null;
  rows: PgRow[];
}

const K = 10;
const MB = 1024 * 1024;
const HERE = fileURLToPath(import.meta.url);

/** Runs the pgvector measurements for one size in fresh processes and returns the report. */
export async function runPgVectorBench(cfg: PgBenchConfig): Promise<PgReport> {
  const server = fork(HERE, [], {
    env: { ...process.env, IRIS_PGVECTOR_BENCH_ROLE: 'server', IRIS_PGVECTOR_BENCH_ENGINE: cfg.engine },
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const url = await nextMessage<string>(server);
    const report = await runMeasure(cfg, url);
    return { ...report, serverRssMB: cfg.engine === 'pglite' ? rssOf(server.pid!) : null };
  } finally {
    server.kill('SIGTERM');
  }
}

function runMeasure(cfg: PgBenchConfig, url: string): Promise<Omit<PgReport, 'serverRssMB'>> {
  const child = fork(HERE, [], {
    env: { ...process.env, IRIS_PGVECTOR_BENCH_ROLE: 'measure', IRIS_PGVECTOR_BENCH_CONFIG: JSON.stringify(cfg), IRIS_PGVECTOR_BENCH_URL: url },
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return nextMessage(child);
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`pgvector bench child exited with ${code}`)));
  });
}

/** Resident memory of another process (Linux), in MB. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.replace(/\D+/g, '')) / 1024 : NaN;
}

function rssMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MB;
}

function itemsOf(gen: SyntheticVectors, start: number, end: number): VectorItem[] {
  const out: VectorItem[] = [];
  for (let i = start; i < end; i++) out.push({ id: i + 1, vector: gen.vector(i), tags: gen.tags(i) });
  return out;
}

const log = (text: string) => console.error(`vector-store bench (pgvector, ${process.env.IRIS_PGVECTOR_BENCH_ENGINE ?? JSON.parse(process.env.IRIS_PGVECTOR_BENCH_CONFIG ?? '{}').engine}): ${text}`);

const FILTERS = [null, 'sel1', 'sel20'] as const;

/** The exact top k of every query and filter, computed first and then dropped (it holds every vector). */
function exactTruth(cfg: PgBenchConfig, gen: SyntheticVectors, queries: Float32Array[]): Map<string | null, Set<number>[]> {
  const exact = new ExactVectorStore({ dimension: cfg.dimension, embeddingVersion: cfg.embeddingVersion });
  for (let i = 0; i < cfg.size; i += 10_000) exact.upsert(itemsOf(gen, i, Math.min(cfg.size, i + 10_000)));
  const truth = new Map(FILTERS.map((f) => [f, queries.map((q) => new Set(exact.search(q, K, parseTagFilter(f ?? undefined)).map((h) => h.id)))]));
  void exact.close();
  return truth;
}

async function measure(cfg: PgBenchConfig, url: string): Promise<Omit<PgReport, 'serverRssMB'>> {
  const gen = new SyntheticVectors({ count: cfg.size, dimension: cfg.dimension, seed: cfg.seed });
  const queries = Array.from({ length: cfg.queries }, (_, q) => gen.query(hash(cfg.seed, q, 99) % cfg.size, q));
  const truthOf = exactTruth(cfg, gen, queries);
  const baselineRssMB = rssMB();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const params = { m: cfg.m, efConstruction: cfg.efConstruction };
  const options = { pool, dimension: cfg.dimension, embeddingVersion: cfg.embeddingVersion, type: cfg.type, params };

  // Live inserts into an indexed partition, through the store.
  const live = new PgVectorStore({ ...options, key: 'live' });
  let t = performance.now();
  for (let i = 0; i < cfg.liveInserts; i += 250) await live.upsert(itemsOf(gen, i, Math.min(cfg.liveInserts, i + 250)));
  const liveInsertsPerSecond = cfg.liveInserts / ((performance.now() - t) / 1000);
  log(`${cfg.liveInserts} live inserts at ${Math.round(liveInsertsPerSecond)}/s`);
  await live.destroy();

  // Bulk build: rows into a table of the partition's shape, then the indexes, then attach it.
  const store = new PgVectorStore({ ...options, key: 'bulk' });
  await store.upsert([], 0);
  const table = vectorTable(cfg);
  const partition = store.partition!;
  const no = Number(partition.slice(table.length + 1));
  await pool.query(`CREATE TABLE bulk_stage (LIKE ${table} INCLUDING DEFAULTS)`);
  t = performance.now();
  for (let i = 0; i < cfg.size; i += 1000) {
    const rows = itemsOf(gen, i, Math.min(cfg.size, i + 1000)).map((item) => ({ id: item.id, tags: item.tags, embedding: `[${Array.from(item.vector, (x) => x.toPrecision(9)).join(',')}]` }));
    await pool.query(
      `INSERT INTO bulk_stage (index_no, id, tags, embedding)
       SELECT $1, v.id, v.tags, v.embedding::${cfg.type} FROM jsonb_to_recordset($2::jsonb) AS v(id bigint, tags text[], embedding text)`,
      [no, JSON.stringify(rows)],
    );
    if (i % 20_000 === 0) log(`rows ${i}/${cfg.size}`);
  }
  const bulkRowsSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const client = await pool.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(`CREATE INDEX ON bulk_stage USING hnsw (embedding ${cfg.type}_cosine_ops) WITH (m = ${cfg.m}, ef_construction = ${cfg.efConstruction})`);
  } finally {
    client.release();
  }
  const bulkIndexSeconds = (performance.now() - t) / 1000;
  log(`bulk: rows ${bulkRowsSeconds.toFixed(0)} s, HNSW index ${bulkIndexSeconds.toFixed(0)} s`);
  await pool.query('CREATE INDEX ON bulk_stage USING gin (tags)');
  await pool.query('ALTER TABLE bulk_stage ADD PRIMARY KEY (index_no, id)');
  // The switch: one short transaction replaces the (empty) partition by the built table.
  await pool.query(`BEGIN;
    ALTER TABLE ${table} DETACH PARTITION ${partition}; DROP TABLE ${partition};
    ALTER TABLE bulk_stage RENAME TO ${partitionTable(table, no)};
    ALTER TABLE ${table} ATTACH PARTITION ${partition} FOR VALUES IN (${no});
    UPDATE iris_vector_indexes SET size = ${cfg.size}, change_seq = 1 WHERE no = ${no};
    COMMIT`);
  await pool.query(`ANALYZE ${partition}`);
  await store.load();

  const rows: PgRow[] = [];
  const timed = async (label: string, filterText: (typeof FILTERS)[number], ef: number) => {
    const filter = parseTagFilter(filterText ?? undefined);
    const truth = truthOf.get(filterText)!;
    for (const q of queries.slice(0, 10)) await store.search(q, K, filter, { ef });
    const times: number[] = [];
    let found = 0;
    let wanted = 0;
    let minHits = K;
    for (const [i, q] of queries.entries()) {
      const started = performance.now();
      const hits = await store.search(q, K, filter, { ef });
      times.push(performance.now() - started);
      wanted += truth[i]!.size;
      found += hits.filter((h) => truth[i]!.has(h.id)).length;
      minHits = Math.min(minHits, hits.length);
    }
    const plan = /Index Scan using \S*embedding/.test(await store.explain(queries[0]!, K, filter, { ef })) ? 'HNSW index scan' : 'exact';
    rows.push({ label, filter: filterText, p50: median(times), p99: percentile(times, 99), recall: wanted ? found / wanted : 1, minHits, plan });
    log(`${label} ${filterText ?? ''} done`);
  };
  for (const ef of cfg.efValues) await timed(`pgvector ef_search=${ef}`, null, ef);
  const ef = cfg.efValues.includes(256) ? 256 : cfg.efValues.at(-1)!;
  for (const filter of ['sel1', 'sel20'] as const) await timed(`pgvector ef_search=${ef}, iterative scan`, filter, ef);

  const rssAfter = rssMB();
  const heapMB = process.memoryUsage().heapUsed / MB;
  const bytes = await pool.query<{ total: string; hnsw: string }>(
    `SELECT pg_total_relation_size($1::regclass) AS total,
            (SELECT sum(pg_relation_size(indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
             WHERE i.indrelid = $1::regclass AND a.amname = 'hnsw') AS hnsw`,
    [partition],
  );
  await pool.end();
  return {
    liveInsertsPerSecond,
    bulkRowsSeconds,
    bulkIndexSeconds,
    baselineRssMB,
    rssMB: rssAfter,
    databaseMB: Number(bytes.rows[0]!.total) / MB,
    hnswIndexMB: Number(bytes.rows[0]!.hnsw) / MB,
    heapMB,
    rows,
  };
}

async function serve(): Promise<void> {
  const { startPgVectorServer } = await import('../test/support/pgvector-server.js');
  const engine = process.env.IRIS_PGVECTOR_BENCH_ENGINE === 'native' ? 'native' : 'pglite';
  const server = await startPgVectorServer({ maxConnections: 4, engine, settings: ['shared_buffers=2GB', 'max_parallel_maintenance_workers=2'] });
  process.send!(server.url);
  process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
}

const ROLE = process.env.IRIS_PGVECTOR_BENCH_ROLE;
if (ROLE === 'server') {
  serve().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else if (ROLE === 'measure') {
  const cfg = JSON.parse(process.env.IRIS_PGVECTOR_BENCH_CONFIG!) as PgBenchConfig;
  measure(cfg, process.env.IRIS_PGVECTOR_BENCH_URL!).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
