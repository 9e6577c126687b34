/**
 * Visual search benchmark on the whole platform as `npm start` runs it (embedded PostgreSQL, the region
 * backends as child processes, the edge on workerd):
 *
 * 1. Query latency on a 100,000-image service: an uploaded 640×480 JPEG, count=20, sequential calls, straight
 *    to the cn-east backend (edge signature added by the bench) and through the edge, each with geometric
 *    re-ranking on and off (`rerank=0`), interleaved call by call; the index bytes per image; and where the
 *    re-ranking time goes, stage by stage (rerank-stages.ts); the regions of the query (default `regions=auto`)
 *    against `regions=off` on the same query, whose whole-picture match is weak (it shows none of the indexed
 *    pictures, so nothing verifies and every call searches its regions). The re-ranking rows use `regions=off`,
 *    so they compare re-ranking alone. The 100k
 *    records are synthetic: rows and 256-d vectors (clustered like real catalogues, see
 *    vectors/synthetic-vectors.ts) written straight into PostgreSQL by a bench-only helper, because embedding
 *    100k real images would take hours on two cores; each record carries the real ORB keypoints of one of ten
 *    real pictures, so re-ranking does its real work. Everything after that is the product's own path: the
 *    backend builds its HNSW index from the stored embeddings, saves it, and loads it after a restart.
 * 2. Indexing throughput: a 2,000-image set (distinct generated 640×480 JPEGs on a loopback server) added
 *    as one CSV to a set that has a service, timed until the service reports n_indexed = 2000 (download +
 *    decode + store + first pass + index: every image searchable), and until n_first_pass_only = 0 (second
 *    passes done too). The floor, in the same run: 2,000 other pictures added to a set without a service
 *    (download + decode + store only). Then the CPU per image by thread group and PostgreSQL, and the bound
 *    the cores set: the floor's CPU plus the bare backbone session on the scenario's views.
 *
 *   npm run bench -- search
 *   IRIS_BENCH_SEARCH_SIZE=20000 IRIS_BENCH_QUERIES=50 IRIS_BENCH_INDEX_IMAGES=500 npm run bench -- search
 *   IRIS_BENCH_SEARCH_SIZE=0 npm run bench -- search     (indexing throughput only)
 *   IRIS_BENCH_INDEX_IMAGES=0 npm run bench -- search    (query latency only)
 *   IRIS_BENCH_SEARCH_ROWS=regions IRIS_BENCH_INDEX_IMAGES=0 npm run bench -- search    (the regions rows only)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { newResourceId, signInternal, DEFAULT_QUOTAS } from '@iris/shared';
import { median, percentile, printTable } from '../../scripts/table.js';
import { startPlatform, type Platform } from '../../scripts/platform.js';
import { freePort } from '../src/db/embedded-postgres.js';
import { EMBEDDING_DIM } from '../src/vision/embedding/embedding-info.js';
import { photoJpeg, photoPixels, stampedPhotoJpegs } from '../test/support/test-images.js';
import { pipelineOf, vectorToBytes } from '../src/domains/search-services/embedding-pipeline.js';
import { SyntheticVectors } from '../test/support/synthetic-vectors.js';
import { opencv } from '../src/vision/runtime/opencv-runtime.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures } from '../src/vision/embedding/local-features.js';
import { RERANK } from '../src/vision/embedding/rerank-score.js';
import { MAX_QUERY_REGIONS } from '../src/vision/embedding/query-regions.js';
import { realPictures, rerankStages } from './rerank-stages.js';
import { recordTriggerCosts } from './record-triggers.js';
import { threadGroupCpuSeconds, treeCpuSeconds } from './process-cpu.js';
import { prepareModels } from '../src/vision/prepare-models.js';
import { backboneInput, backboneSession, EMBEDDING_OUTPUTS } from '../src/vision/embedding/backbone.js';
import { renderView } from '../src/vision/embedding/image-views.js';
import { scenarioViews } from '../src/vision/embedding/scenario-config.js';
import { backbonePrecision } from '../src/vision/runtime/backbone-precision.js';
import { modelCacheDir } from '../src/vision/runtime/converted-model.js';
import { decodeImage } from '../src/images/image-decoder.js';

const SIZE = Number(process.env.IRIS_BENCH_SEARCH_SIZE ?? 100_000);
const QUERIES = Number(process.env.IRIS_BENCH_QUERIES ?? 100);
const INDEX_IMAGES = Number(process.env.IRIS_BENCH_INDEX_IMAGES ?? 2000);
/** `regions`: only the weak-match rows (the regions of the query against `regions=off`) and no re-ranking stages. */
const ROWS = process.env.IRIS_BENCH_SEARCH_ROWS ?? 'all';
const SCENARIO = 'general';
const CHUNK = 5000;
/** The backend's default (IRIS_SEARCH_RERANK). */
const RERANK_CANDIDATES = Number(process.env.IRIS_SEARCH_RERANK ?? RERANK.candidates);

interface Reply {
  status: number;
  body: Record<string, unknown>;
  ms: number;
}

type Caller = (method: string, url: string, body?: { payload: Buffer | string; contentType: string }, resourceId?: string) => Promise<Reply>;

function multipartBody(fields: Record<string, string>, file: Buffer): { payload: Buffer; contentType: string } {
  const boundary = `----irisbench${newResourceId(12)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="search"; filename="q.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`), file, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function csvBody(field: string, csv: string): { payload: Buffer; contentType: string } {
  const boundary = `----irisbench${newResourceId(12)}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="urls.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(csv),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

const json = (value: object) => ({ payload: JSON.stringify(value), contentType: 'application/json' });

async function send(url: string, method: string, headers: Record<string, string>, body?: { payload: Buffer | string; contentType: string }): Promise<Reply> {
  const started = performance.now();
  const res = await fetch(url, { method, headers: { ...headers, ...(body ? { 'content-type': body.contentType } : {}) }, ...(body ? { body: body.payload } : {}) });
  const text = await res.text();
  const ms = performance.now() - started;
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, ms };
}

/** Calls a backend directly, with the signature the edge would add. */
function backendCaller(platform: Platform): Caller {
  return async (method, url, body, resourceId) => {
    const context = { requestId: newResourceId(16), lang: 'en' as const, quotas: { ...DEFAULT_QUOTAS }, ...(resourceId ? { resourceId } : {}) };
    const signed = await signInternal(platform.internalSecrets['cn-east'], { method, pathWithQuery: url, accountId: platform.devAccount.account_id, context, body: body?.payload });
    return send(`${platform.backendUrls['cn-east']}${url}`, method, signed, body);
  };
}

/** Calls the edge with the development account's access key. */
function edgeCaller(platform: Platform): Caller {
  return (method, url, body) => send(`${platform.edgeUrl}${url}`, method, { 'x-ca-accesskeyid': platform.devAccount.key_id, 'x-ca-version': '1' }, body);
}

function expectOk(reply: Reply, what: string): Record<string, unknown> {
  if (reply.status !== 200) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/**
 * Real ORB features (as indexing stores them) of ten real pictures: synthetic records carry these in turn, so
 * re-ranking reads, unpacks and verifies real keypoints (the query, a generated photo, is none of them: every
 * candidate is verified, none decisively — the full cost).
 */
async function featurePool(): Promise<Buffer[]> {
  const { cv } = await opencv();
  return (await realPictures()).map((rgb) => {
    const packed = packLocalFeatures(extractLocalFeatures(cv, rgb, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures));
    return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  });
}

/**
 * Bench-only: writes `count` synthetic downloaded records, their embeddings and index items for a service in
 * one transaction, and marks the service indexed up to them (so no indexing job runs for them).
 */
async function insertSynthetic(databaseUrl: string, setId: string, serviceId: string, count: number): Promise<number> {
  const started = performance.now();
  const synthetic = new SyntheticVectors({ count, dimension: EMBEDDING_DIM, seed: 11 });
  const pool = await featurePool();
  const pipeline = pipelineOf(SCENARIO);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (let from = 0; from < count; from += CHUNK) {
      const rows = [];
      const keys: string[] = [];
      const vectors: Buffer[] = [];
      const features: Buffer[] = [];
      for (let i = from; i < Math.min(count, from + CHUNK); i++) {
        const key = `synthetic-${String(i).padStart(8, '0')}`;
        rows.push({ url: `https://bench.invalid/${i}.jpg`, meta: `synthetic ${i}`, tags: synthetic.tags(i), key });
        keys.push(key);
        vectors.push(vectorToBytes(synthetic.vector(i)));
        features.push(pool[i % pool.length]!);
      }
      await client.query(
        `INSERT INTO image_embeddings (blob_key, pipeline, vector, features) SELECT k, $1, v, f FROM unnest($2::text[], $3::bytea[], $4::bytea[]) AS t(k, v, f) ON CONFLICT DO NOTHING`,
        [pipeline, keys, vectors, features],
      );
      await client.query(
        `WITH r AS (
           INSERT INTO data_set_records (set_id, url, meta, tags, status, blob_key, width, height, attempts)
           SELECT $1, v.url, v.meta, v.tags, 'downloaded', v.key, 640, 480, 1 FROM jsonb_to_recordset($2::jsonb) AS v(url text, meta text, tags text[], key text)
           RETURNING id, blob_key, tags
         )
         INSERT INTO search_index_items (service_id, record_id, blob_key, tags, seq)
         SELECT $3, r.id, r.blob_key, r.tags, nextval('search_index_item_seq') FROM r`,
        [setId, JSON.stringify(rows), serviceId],
      );
    }
    await client.query(
      `UPDATE search_services SET
         source_seq = (SELECT max(change_seq) FROM data_set_records WHERE set_id = $2),
         index_seq = (SELECT max(seq) FROM search_index_items WHERE service_id = $1),
         n_indexed = (SELECT count(*) FROM search_index_items WHERE service_id = $1 AND deleted_at IS NULL),
         indexed_at = now(), updated_at = now(), caught_up_at = now()
       WHERE id = $1`,
      [serviceId, setId],
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}

interface Sample {
  ms: number;
  time: number;
  preprocess: number;
  search: number;
}

/** A way to call the search: through the edge or straight to the backend, with extra fields (rerank=0). */
interface Variant {
  call: Caller;
  fields: Record<string, string>;
}

async function measureQueries(variants: Record<string, Variant>, serviceId: string, query: Buffer, fields: Record<string, string>): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(Object.keys(variants).map((k) => [k, []]));
  // Interleaved, so every variant sees the same machine load.
  for (let i = 0; i < QUERIES; i++) {
    for (const [name, { call, fields: extra }] of Object.entries(variants)) {
      const reply = await call('POST', `/search/${serviceId}`, multipartBody({ count: '20', ...fields, ...extra }, query));
      const body = expectOk(reply, `search via ${name}`);
      if (!Array.isArray(body.results) || body.results.length === 0) throw new Error(`search via ${name} returned no results`);
      samples.get(name)!.push({ ms: reply.ms, time: Number(body.time) * 1000, preprocess: Number(body.preprocess_time) * 1000, search: Number(body.searchtime) * 1000 });
    }
  }
  return samples;
}

/** Waits for a backend log line (pino JSON) about the service with one of the messages, written after `offset`. */
async function logLine(file: string, offset: number, serviceId: string, messages: string[], timeoutMs = 10 * 60_000): Promise<{ msg: string; ms: number; size: number }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = existsSync(file) ? readFileSync(file).subarray(offset).toString('utf8') : '';
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; serviceId?: string; ms?: number; size?: number };
      if (entry.serviceId === serviceId && entry.msg && messages.includes(entry.msg)) return { msg: entry.msg, ms: entry.ms ?? NaN, size: entry.size ?? NaN };
    }
    if (Date.now() > until) throw new Error(`no log line ${messages.join(' / ')} for ${serviceId} in ${file}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const logSize = (file: string) => (existsSync(file) ? statSync(file).size : 0);

function dirMegabytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0) / 1024 / 1024;
}

async function queryLatency(platform: Platform, dataDir: string): Promise<void> {
  const backend = backendCaller(platform);
  const edge = edgeCaller(platform);
  const log = path.join(dataDir, 'logs', 'backend-cn-east.log');
  const setId = String(expectOk(await edge('POST', '/image_sets/_0000014', json({ name: 'bench 100k' })), 'create set').id);
  const serviceId = String(expectOk(await edge('POST', `/image_sets/_0000014/${setId}/services`, json({ name: 'bench', scenario: SCENARIO })), 'create service').id);
  const indexDir = path.join(dataDir, 'regions', 'cn-east', 'indexes', serviceId);
  const query = await photoJpeg(640, 480, 3);
  const largeQuery = await photoJpeg(1024, 768, 3);
  // Indexes load on demand (IRIS_INDEX_MEMORY_MB): a query makes the backend load the service's index, and the
  // backend logs how it got it (built from the stored embeddings, or read from its saved file).
  const loadByQuery = async (messages: string[]) => {
    const offset = logSize(log);
    const answered = backend('POST', `/search/${serviceId}`, multipartBody({ count: '20' }, query)).catch(() => undefined);
    const line = await logLine(log, offset, serviceId, messages);
    await answered;
    return line;
  };
  const insertSeconds = await insertSynthetic(platform.databaseUrls['cn-east'], setId, serviceId, SIZE);
  const built = await loadByQuery(['search index caught up', 'search index rebuilt from stored embeddings']);
  await platform.restartBackend('cn-east');
  const loaded = await loadByQuery(['search index loaded']);
  const fileMB = dirMegabytes(indexDir);
  rmSync(indexDir, { recursive: true, force: true });
  await platform.restartBackend('cn-east');
  const rebuilt = await loadByQuery(['search index rebuilt from stored embeddings']);
  const service = expectOk(await backend('GET', `/customer_services/_0000172/${serviceId}`), 'get service');
  if (Number(service.n_indexed) !== SIZE) throw new Error(`service reports n_indexed ${String(service.n_indexed)}`);

  const callers = { backend, edge };
  for (const call of Object.values(callers)) for (let i = 0; i < 5; i++) expectOk(await call('POST', `/search/${serviceId}`, multipartBody({ count: '20' }, query)), 'warm-up');

  const rows: (string | number)[][] = [];
  const timed = async (label: string, fields: Record<string, string>, variants: Record<string, Variant>, picture = query) => {
    const measured = await measureQueries(variants, serviceId, picture, fields);
    for (const [name, list] of measured) {
      const ms = list.map((s) => s.ms);
      rows.push([`${label}, ${name}`, median(ms), percentile(ms, 99), median(list.map((s) => s.time)), median(list.map((s) => s.preprocess)), median(list.map((s) => s.search))]);
    }
    return new Map([...measured].map(([name, list]) => [name, median(list.map((s) => s.ms))]));
  };
  const loadBefore = os.loadavg()[0]!;
  // Re-ranking on and off in the same run, interleaved call by call.
  const all = ROWS !== 'regions';
  const p50 = !all ? new Map<string, number>() : await timed('no filter', {}, {
    're-ranking on, through the edge': { call: edge, fields: { regions: 'off' } },
    're-ranking off (rerank=0), through the edge': { call: edge, fields: { rerank: '0' } },
    're-ranking on, backend direct': { call: backend, fields: { regions: 'off' } },
    're-ranking off (rerank=0), backend direct': { call: backend, fields: { rerank: '0' } },
  });
  // The same with a 1024×768 photo (decoded at 1024 px for the embedding; its keypoints described at 640 px).
  const p50Large = await timed('1024×768 query', {}, {
    're-ranking on, backend direct': { call: backend, fields: { regions: 'off' } },
    're-ranking off (rerank=0), backend direct': { call: backend, fields: { rerank: '0' } },
  }, largeQuery);
  // The query matches none of the indexed pictures: a weak whole-picture match, so regions=auto searches its regions.
  const withRegions = await timed('weak match', {}, {
    'regions (default), backend direct': { call: backend, fields: {} },
    'regions=off, backend direct': { call: backend, fields: { regions: 'off' } },
  });
  if (all) {
    await timed('tags=sel20 (20 % of items)', { tags: 'sel20' }, { 'backend direct': { call: backend, fields: {} } });
    await timed('tags=sel1 (1 % of items)', { tags: 'sel1' }, { 'backend direct': { call: backend, fields: {} } });
  }
  const ratio = (on: string, off: string) => (p50.get(on) ?? NaN) / (p50.get(off) ?? NaN);
  const edgeRatio = ratio('re-ranking on, through the edge', 're-ranking off (rerank=0), through the edge');
  const directRatio = ratio('re-ranking on, backend direct', 're-ranking off (rerank=0), backend direct');
  const largeRatio = (p50Large.get('re-ranking on, backend direct') ?? NaN) / (p50Large.get('re-ranking off (rerank=0), backend direct') ?? NaN);
  const regionsRatio = (withRegions.get('regions (default), backend direct') ?? NaN) / (withRegions.get('regions=off, backend direct') ?? NaN);

  console.log(
    `${SIZE.toLocaleString('en')} synthetic images: ${EMBEDDING_DIM}-d vectors and records written straight into PostgreSQL by a bench-only helper ` +
      `(${insertSeconds.toFixed(1)} s), because embedding that many real images would take hours on two cores. The service reports n_indexed = ${String(service.n_indexed)}.\n`,
  );
  const n = `${Math.round(SIZE / 1000)}k`;
  printTable([`index of the ${n}-image service in a backend process`, 'seconds'], [
    [`building the index from the stored embeddings (the service's first query)`, built.ms / 1000],
    [`loading the saved index at start (${fileMB.toFixed(0)} MB on disk)`, loaded.ms / 1000],
    ['rebuilding at start when the saved index is gone', rebuilt.ms / 1000],
  ]);
  console.log(
    `Query: an uploaded 640×480 JPEG of ${Math.round(query.length / 1024)} KB (and a 1024×768 one of ${Math.round(largeQuery.length / 1024)} KB where said), count=20, ${QUERIES} sequential calls per row (edge and direct interleaved), ` +
      `${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before / ${os.loadavg()[0]!.toFixed(1)} after.\n`,
  );
  printTable([`query on ${n} images`, 'p50 ms', 'p99 ms', 'backend time p50 ms', 'decode + embed p50 ms', 'index search + records (+ re-ranking) p50 ms'], rows);
  console.log(
    `Re-ranking (${RERANK_CANDIDATES} candidates verified) costs ×${edgeRatio.toFixed(2)} of the same query without it through the edge (target ≤ 1.3), ` +
      `×${directRatio.toFixed(2)} straight to the backend; for a 1024×768 query photo ×${largeRatio.toFixed(2)} straight to the backend. Searching the query's ${MAX_QUERY_REGIONS} regions when the whole-picture match is weak costs ` +
      `×${regionsRatio.toFixed(2)} of the same query with regions=off, straight to the backend (goal ≤ 1.5).\n`,
  );
  if (!all) return;
  const bytes = await indexBytes(platform.databaseUrls['cn-east'], SIZE, fileMB);
  printTable(['index bytes per image', 'bytes'], bytes);

  const pool = new pg.Pool({ connectionString: platform.databaseUrls['cn-east'], max: 2 });
  try {
    const ids = await pool.query<{ record_id: string }>('SELECT record_id FROM search_index_items WHERE service_id = $1 ORDER BY random() LIMIT 10', [serviceId]);
    await rerankStages({ pool, serviceId, pipeline: pipelineOf(SCENARIO), recordIds: ids.rows.map((r) => Number(r.record_id)) });
  } finally {
    await pool.end();
  }
}

/** Bytes each indexed image costs: its vector and local features in PostgreSQL, its share of the saved HNSW file. */
async function indexBytes(databaseUrl: string, size: number, fileMB: number): Promise<(string | number)[][]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ vector: string; features: string }>(
      `SELECT avg(length(vector))::float8 AS vector, avg(length(features))::float8 AS features FROM image_embeddings WHERE features IS NOT NULL`,
    );
    const vector = Number(rows[0]?.vector ?? NaN);
    const features = Number(rows[0]?.features ?? NaN);
    const hnsw = (fileMB * 1024 * 1024) / size;
    return [
      ['vector (PostgreSQL image_embeddings.vector)', vector],
      ['ORB keypoints for re-ranking (image_embeddings.features, average)', features],
      ['saved HNSW index file (vectors + graph), per image', hnsw],
      ['total', vector + features + hnsw],
    ];
  } finally {
    await client.end();
  }
}

/** CPU seconds so far of the cn-east backend's thread groups and of PostgreSQL (all its processes). */
function cpuSeconds(platform: Platform): Record<string, number> {
  const { backends, postgres } = platform.processes();
  return { ...threadGroupCpuSeconds(backends['cn-east']!), PostgreSQL: postgres ? treeCpuSeconds(postgres) : NaN };
}

interface AddRun {
  downloaded: number;
  searchable: number;
  complete: number;
  /** CPU milliseconds per image by part, up to downloaded (no service) or searchable (with one). */
  cpuMsPerImage: Record<string, number>;
  /** CPU milliseconds per image by part up to complete (with a service; empty without). */
  cpuMsPerImageComplete: Record<string, number>;
  /** PostgreSQL transactions (commits and rollbacks, all clients) per image, up to downloaded (no service) or searchable. */
  transactionsPerImage: number;
}

/** Transactions the region's database has ended so far (its statistics; a machine's load does not change them). */
async function transactionsSoFar(platform: Platform): Promise<number> {
  const client = new pg.Client({ connectionString: platform.databaseUrls['cn-east'] });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** Seconds from a CSV upload of `urls` to the set downloaded, searchable (`n_indexed`) and complete (`n_first_pass_only` 0). */
async function addAndWait(platform: Platform, backend: Caller, urls: string[], withService: boolean): Promise<AddRun> {
  const setId = newResourceId();
  expectOk(await backend('POST', '/image_sets/_0000014', json({ name: 'bench index' }), setId), 'create set');
  const serviceId = newResourceId();
  if (withService) expectOk(await backend('POST', `/image_sets/_0000014/${setId}/services`, json({ name: 'bench', scenario: SCENARIO }), serviceId), 'create service');
  const csv = urls.map((url, n) => `${url},meta ${n},t${n % 10}`).join('\n');
  const cpuBefore = cpuSeconds(platform);
  const transactionsBefore = await transactionsSoFar(platform);
  const transactionsPerImage = async () => (await transactionsSoFar(platform) - transactionsBefore) / urls.length;
  const cpuMsPerImageSoFar = () => Object.fromEntries(Object.entries(cpuSeconds(platform)).map(([part, seconds]) => [part, ((seconds - (cpuBefore[part] ?? 0)) * 1000) / urls.length]));
  let cpuMsPerImage: Record<string, number> = {};
  let transactions = NaN;
  const started = performance.now();
  expectOk(await backend('POST', `/image_sets/_0000014/${setId}`, csvBody('urls_to_add', csv)), 'bulk add');
  let downloaded = 0;
  let searchable = 0;
  for (;;) {
    const now = () => (performance.now() - started) / 1000;
    const set = expectOk(await backend('GET', `/image_sets/_0000014/${setId}`), 'get set');
    if (set.status === 'downloaded' && Number(set.n_downloaded) < urls.length) throw new Error(`only ${String(set.n_downloaded)} images downloaded`);
    if (!downloaded && set.status === 'downloaded') downloaded = now();
    if (!withService) {
      if (downloaded) return { downloaded, searchable: NaN, complete: NaN, cpuMsPerImage: cpuMsPerImageSoFar(), cpuMsPerImageComplete: {}, transactionsPerImage: await transactionsPerImage() };
    } else {
      const service = expectOk(await backend('GET', `/customer_services/_0000172/${serviceId}`), 'get service');
      if (!searchable && Number(service.n_indexed) >= urls.length) {
        searchable = now();
        cpuMsPerImage = cpuMsPerImageSoFar();
        transactions = await transactionsPerImage();
      }
      if (searchable && Number(service.n_first_pass_only) === 0) return { downloaded, searchable, complete: now(), cpuMsPerImage, cpuMsPerImageComplete: cpuMsPerImageSoFar(), transactionsPerImage: transactions };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function indexingThroughput(platform: Platform): Promise<void> {
  // Distinct pictures for the floor run and the measured run: the same bytes would be stored and embedded once.
  const images = await stampedPhotoJpegs(2 * INDEX_IMAGES);
  const server = http.createServer((req, res) => {
    const image = images[Number(/\/(\d+)\.jpg/.exec(req.url ?? '')?.[1] ?? -1)];
    if (!image) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': image.length }).end(image);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const backend = backendCaller(platform);
  const urls = (from: number) => Array.from({ length: INDEX_IMAGES }, (_, n) => `${base}/${from + n}.jpg`);
  try {
    const gcAtStart = await mainThreadGc(platform);
    const floor = await addAndWait(platform, backend, urls(INDEX_IMAGES), false);
    const gcAfterFloor = await mainThreadGc(platform);
    const run = await addAndWait(platform, backend, urls(0), true);
    const gcAfterRun = await mainThreadGc(platform);
    const avgKb = images.reduce((s, i) => s + i.length, 0) / images.length / 1024;
    console.log(
      `${INDEX_IMAGES} distinct 640×480 JPEGs (${avgKb.toFixed(0)} KB on average) from a loopback server, one CSV upload, scenario ${SCENARIO}, ` +
        `one backend with ${os.availableParallelism()} inference threads, load average ${os.loadavg()[0]!.toFixed(1)} at the end. ` +
        `The floor: ${INDEX_IMAGES} other pictures added the same way to a set without a service, before.\n`,
    );
    printTable(['indexing', 'seconds', 'images/s'], [
      ['floor: upload → set downloaded, no service (download + decode + store)', floor.downloaded, INDEX_IMAGES / floor.downloaded],
      ['upload → set downloaded, with the service indexing', run.downloaded, INDEX_IMAGES / run.downloaded],
      ['upload → service n_indexed = all, searchable (download + decode + store + first pass + index)', run.searchable, INDEX_IMAGES / run.searchable],
      ['upload → service n_first_pass_only = 0 (+ second pass: thumbnail view, ORB keypoints)', run.complete, INDEX_IMAGES / run.complete],
    ]);
    // Where the cores went: 100 images/s on 2 cores leaves 20 ms of CPU per image for everything.
    const parts = [...new Set([...Object.keys(floor.cpuMsPerImage), ...Object.keys(run.cpuMsPerImage)])];
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    console.log('\nCPU per image (ms), cn-east backend by thread group and PostgreSQL: the floor up to downloaded, the service run up to searchable.\n');
    printTable(['part', 'floor', 'with the service, up to searchable', 'up to complete'], [
      ...parts.map((part) => [part, floor.cpuMsPerImage[part] ?? 0, run.cpuMsPerImage[part] ?? 0, run.cpuMsPerImageComplete[part] ?? 0]),
      ['all', sum(floor.cpuMsPerImage), sum(run.cpuMsPerImage), sum(run.cpuMsPerImageComplete)],
      ['PostgreSQL transactions per image (all clients, the bench\'s polling too)', floor.transactionsPerImage, run.transactionsPerImage, ''],
    ]);
    // The most the cores allow: the floor's work plus the backbone alone, as if decoding the stored copy,
    // rendering the views, pooling, whitening and the index insert of the first pass cost nothing.
    const floorMs = sum(floor.cpuMsPerImage);
    const backboneMs = await bareBackboneMsPerImage();
    const decodeMs = await decodeCpuMsPerImage(images.slice(0, DECODE_SAMPLE));
    const modelMs = decodeMs + backboneMs;
    const cores = os.availableParallelism();
    console.log(`\nBound on ${cores} cores: the floor's CPU per image plus the bare backbone session (${backbonePrecision()}, batch ${BOUND_BATCH}, one thread, this process, after the runs).\n`);
    printTable(['bound', 'ms of CPU per image', 'images/s'], [
      ['floor: download + decode + store', floorMs, (cores * 1000) / floorMs],
      [`+ the bare backbone on the ${SCENARIO} views of a 640×480 picture`, floorMs + backboneMs, (cores * 1000) / (floorMs + backboneMs)],
      ['measured: searchable, with the service', sum(run.cpuMsPerImage), INDEX_IMAGES / run.searchable],
    ]);
    // The work a picture has to cost: one decode of the downloaded bytes and one backbone pass on its views.
    // Everything above it in the measured rows is plumbing (goals: searchable ≤ 2×, complete ≤ 3×).
    const searchableMs = sum(run.cpuMsPerImage);
    const completeMs = sum(run.cpuMsPerImageComplete);
    console.log(
      `\nAgainst the model, same run: decoding the downloaded bytes (${DECODE_SAMPLE} of them, 8-bit RGB, process CPU) and the bare backbone ` +
        `session on the ${SCENARIO} views, in this process after the runs; load average ${os.loadavg()[0]!.toFixed(1)}.\n`,
    );
    printTable(['CPU per picture', 'ms', '× model floor', `images/s the CPU allows on ${cores} cores`], [
      ['model floor: decode + backbone', modelMs, 1, (cores * 1000) / modelMs],
      ['  of which decode', decodeMs, decodeMs / modelMs, ''],
      ['  of which backbone', backboneMs, backboneMs / modelMs, ''],
      ['measured: searchable', searchableMs, searchableMs / modelMs, (cores * 1000) / searchableMs],
      ['measured: complete', completeMs, completeMs / modelMs, (cores * 1000) / completeMs],
    ]);
    console.log(
      '\nGarbage collections of the cn-east backend\'s main thread (its iris_nodejs_gc_duration_seconds, by kind), during each run up to complete ' +
        '(the floor: up to downloaded); pixels kept in memory that the main thread holds count towards what sets off a full collection.\n',
    );
    printTable(['collections', 'floor: count', 'floor: ms', 'service run: count', 'service run: ms'], [
      ...GC_KINDS.map((kind) => [kind, ...gcBetween(gcAtStart, gcAfterFloor, kind), ...gcBetween(gcAfterFloor, gcAfterRun, kind)]),
      ['all, ms per picture', '', sumGcMs(gcAtStart, gcAfterFloor) / INDEX_IMAGES, '', sumGcMs(gcAfterFloor, gcAfterRun) / INDEX_IMAGES],
    ]);
    const sources = await embedSources(platform);
    console.log('\nWhere each pass of the service run found its pixels (the backend\'s iris_search_index_embeds_total): kept in memory since the download or the first pass, or the stored copy read and decoded.\n');
    printTable(['pass', 'kept', 'stored'], ['first', 'second', 'whole'].map((pass) => [pass, sources[`${pass}/kept`] ?? 0, sources[`${pass}/stored`] ?? 0]));
  } finally {
    server.close();
  }
}

/** The cn-east backend's metrics, from its metrics listener (its port + 1000, as the platform sets it). */
async function backendMetrics(platform: Platform): Promise<string[]> {
  const backend = new URL(platform.backendUrls['cn-east']);
  const res = await fetch(`http://${backend.hostname}:${Number(backend.port) + 1000}/metrics`);
  return (await res.text()).split('\n');
}

/** A label's value in a sample's `{…}` label list (the registry adds its default ones, in any order). */
const labelOf = (labels: string, name: string) => new RegExp(`(?:^|,)${name}="([a-z]+)"`).exec(labels)?.[1];

const GC_KINDS = ['major', 'incremental', 'minor', 'weakcb'] as const;
type GcTotals = Record<string, { count: number; seconds: number }>;

/** The backend's main-thread garbage collections so far, by kind (prom-client's default GC histogram). */
async function mainThreadGc(platform: Platform): Promise<GcTotals> {
  const out: GcTotals = {};
  for (const line of await backendMetrics(platform)) {
    const m = /^iris_nodejs_gc_duration_seconds_(count|sum)\{([^}]*)\} ([0-9.e+-]+)$/.exec(line);
    const kind = m && labelOf(m[2]!, 'kind');
    if (!m || !kind) continue;
    const totals = (out[kind] ??= { count: 0, seconds: 0 });
    if (m[1] === 'count') totals.count = Number(m[3]);
    else totals.seconds = Number(m[3]);
  }
  return out;
}

/** Count and milliseconds of one kind of collection between two readings. */
function gcBetween(from: GcTotals, to: GcTotals, kind: string): [number, number] {
  return [(to[kind]?.count ?? 0) - (from[kind]?.count ?? 0), ((to[kind]?.seconds ?? 0) - (from[kind]?.seconds ?? 0)) * 1000];
}

const sumGcMs = (from: GcTotals, to: GcTotals) => GC_KINDS.reduce((sum, kind) => sum + gcBetween(from, to, kind)[1], 0);

/** The cn-east backend's indexing embeddings by `pass/source`. */
async function embedSources(platform: Platform): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const line of await backendMetrics(platform)) {
    const m = /^iris_search_index_embeds_total\{(.*)\} (\d+)$/.exec(line);
    if (!m) continue;
    out[`${labelOf(m[1]!, 'pass')}/${labelOf(m[1]!, 'source')}`] = Number(m[2]);
  }
  return out;
}

const BOUND_BATCH = 8;
const DECODE_SAMPLE = 100;
const BACKBONE_RUNS = 10;

/** Process CPU milliseconds (all threads: libvips's too) of decoding each picture to 8-bit RGB, one at a time, after a warm-up. */
async function decodeCpuMsPerImage(pictures: Buffer[]): Promise<number> {
  for (const bytes of pictures.slice(0, 5)) await decodeImage(bytes);
  const before = process.cpuUsage();
  for (const bytes of pictures) await decodeImage(bytes);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / pictures.length;
}

/** Process CPU ms per image of the bare backbone session on the scenario's views of a 640×480 picture (views of one size batched, as indexing runs them). */
async function bareBackboneMsPerImage(): Promise<number> {
  const session = await backboneSession([...EMBEDDING_OUTPUTS]);
  const picture = photoPixels(640, 480, 7);
  let total = 0;
  for (const spec of scenarioViews(SCENARIO)) {
    const view = await renderView(picture, spec);
    const feed = { [session.inputNames[0]!]: backboneInput(Array.from({ length: BOUND_BATCH }, () => view)) };
    for (let i = 0; i < 2; i++) await session.run(feed);
    const before = process.cpuUsage();
    for (let i = 0; i < BACKBONE_RUNS; i++) await session.run(feed);
    const used = process.cpuUsage(before);
    total += (used.user + used.system) / 1000 / BACKBONE_RUNS / BOUND_BATCH;
  }
  return total;
}

export default async function run(): Promise<void> {
  await prepareModels();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-bench-search-'));
  const platform = await startPlatform({
    dataDir,
    edgePort: await freePort(),
    backendPorts: { 'cn-east': await freePort(), 'ap-southeast': await freePort() },
    allowPrivateUrls: true,
    stdio: 'logs',
    // info: the backend logs how long each index load took (read back from its log file). The model cache is
    // this process's, made before the backends start, so making it does not run beside the measurements.
    env: { LOG_LEVEL: 'info', IRIS_MODEL_CACHE_DIR: modelCacheDir() },
  });
  try {
    if (SIZE > 0) await queryLatency(platform, dataDir);
    if (INDEX_IMAGES > 0) {
      await indexingThroughput(platform);
      await recordTriggerCosts(platform.databaseUrls['cn-east']);
    }
  } finally {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
