/**
 * Search indexes under a per-process memory budget (IRIS_INDEX_MEMORY_MB): 24 services of 5,000 vectors
 * each (IRIS_BENCH_INDEX_ITEMS) in real PostgreSQL, a budget that holds 4 of them. Reported: the first load
 * (rebuilt from the stored embeddings, then saved), a reload after eviction (from the index file), a query
 * of a loaded index, the estimated bytes held against the budget, and the process RSS.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { median, percentile, printTable } from '../../scripts/table.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { EMBEDDING_DIM } from '../src/vision/embedding/embedding-info.js';
import { pipelineOf, vectorToBytes } from '../src/domains/search-services/embedding-pipeline.js';
import { serviceState } from '../src/domains/search-services/search-service.repo.js';
import { ServiceIndexes } from '../src/domains/search-services/service-indexes.js';
import { seededRandom } from '../src/util/seeded-random.js';

const SERVICES = 24;
const ITEMS = Number(process.env.IRIS_BENCH_INDEX_ITEMS ?? 5000);
const HELD = 4;
// The built-in embedder's pipeline of the services' scenario (its id names the embedder and the vector length).
const PIPELINE = pipelineOf('general');

function randomUnit(rand: () => number): Float32Array {
  const v = new Float32Array(EMBEDDING_DIM);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = rand() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  for (let i = 0; i < v.length; i++) v[i]! /= Math.sqrt(norm);
  return v;
}

async function seed(pool: pg.Pool): Promise<{ ids: string[]; probe: Float32Array }> {
  const rand = seededRandom(7);
  await pool.query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ('benchset', 1, 'image_set', 'bench')`);
  const vectors = Array.from({ length: ITEMS }, () => randomUnit(rand));
  for (let from = 0; from < ITEMS; from += 1000) {
    const slice = vectors.slice(from, from + 1000);
    await pool.query(
      `INSERT INTO image_embeddings (blob_key, pipeline, vector) SELECT 'blob' || k, $1, v FROM unnest($2::int[], $3::bytea[]) AS t(k, v)`,
      [PIPELINE, slice.map((_, i) => from + i), slice.map((v) => vectorToBytes(v))],
    );
  }
  const ids: string[] = [];
  for (let s = 0; s < SERVICES; s++) {
    const id = `benchsvc${String(s).padStart(4, '0')}`;
    ids.push(id);
    await pool.query(
      `INSERT INTO search_services (id, account_id, kind, name, scenario, set_id, pipeline, index_seq, n_indexed) VALUES ($1, 1, 'image_set', 's', 'general', 'benchset', $2, $3, $4)`,
      [id, PIPELINE, ITEMS, ITEMS],
    );
    await pool.query(
      `INSERT INTO search_index_items (service_id, record_id, blob_key, seq) SELECT $1, k + 1, 'blob' || k, k + 1 FROM generate_series(0, $2::int - 1) AS k`,
      [id, ITEMS],
    );
  }
  return { ids, probe: vectors[42]! };
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-index-memory-'));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  await postgres.ensureDatabase('iris_bench_indexes');
  pg.types.setTypeParser(20, (value) => Number(value)); // as the backend's database plugin does
  const pool = new pg.Pool({ connectionString: postgres.connectionString('iris_bench_indexes') });
  pool.on('error', () => undefined); // idle connections end with the server
  try {
    await migrate(pool);
    const { ids, probe } = await seed(pool);
    const log = Fastify({ logger: { level: 'warn' } }).log;
    // Size of one index, measured, then a budget that holds HELD of them.
    const sizing = new ServiceIndexes({ pool, cacheDir: path.join(dir, 'sizing'), instanceId: randomUUID(), log });
    await sizing.acquire((await serviceState(pool, ids[0]!))!);
    const one = sizing.memoryBytes;
    await sizing.close();
    const budget = one * HELD + one / 2;
    const indexes = new ServiceIndexes({ pool, cacheDir: path.join(dir, 'data'), instanceId: randomUUID(), log, memoryBudgetBytes: budget });
    const rssBefore = process.memoryUsage().rss;
    const time = async (id: string) => {
      const state = (await serviceState(pool, id))!;
      const started = performance.now();
      const hits = await indexes.use(state, (store) => store.search(probe, 10));
      if (hits[0]?.id !== 43) throw new Error(`service ${id} answered ${hits[0]?.id}`);
      return performance.now() - started;
    };
    const first: number[] = [];
    const reload: number[] = [];
    const warm: number[] = [];
    let peak = 0;
    for (const id of ids) {
      first.push(await time(id));
      peak = Math.max(peak, indexes.memoryBytes);
    }
    for (const id of ids) {
      reload.push(await time(id)); // evicted since: read back from its file
      warm.push(await time(id));
      peak = Math.max(peak, indexes.memoryBytes);
    }
    const rssAfter = process.memoryUsage().rss;
    console.log(`${SERVICES} services × ${ITEMS} vectors of ${EMBEDDING_DIM} dims; one index ≈ ${(one / 2 ** 20).toFixed(1)} MB estimated; budget ${(budget / 2 ** 20).toFixed(1)} MB (${HELD} indexes)\n`);
    printTable(
      ['step', 'p50 ms', 'p90 ms', 'max ms'],
      [
        ['first load: rebuild from stored embeddings + save + query', median(first), percentile(first, 90), Math.max(...first)],
        ['reload after eviction: index file + query', median(reload), percentile(reload, 90), Math.max(...reload)],
        ['query of a loaded index (k = 10)', median(warm), percentile(warm, 90), Math.max(...warm)],
      ],
    );
    printTable(
      ['memory', 'MB'],
      [
        ['budget (IRIS_INDEX_MEMORY_MB)', budget / 2 ** 20],
        ['peak estimate held', peak / 2 ** 20],
        [`all ${SERVICES} indexes (estimate, without the budget)`, (one * SERVICES) / 2 ** 20],
        ['RSS growth of the process over the run', (rssAfter - rssBefore) / 2 ** 20],
      ],
    );
    console.log(`${indexes.evictions} evictions, ${indexes.loaded.length} indexes held at the end`);
    await indexes.close();
  } finally {
    await pool.end();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
