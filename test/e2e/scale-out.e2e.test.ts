/**
 * A region grown by adding processes: cn-east served by three backend processes on one native PostgreSQL 15 with
 * pgvector behind Debian's HAProxy (support/scale-out-region.ts).
 *
 * While 1,000 pictures are added to a set with a search service, queries run and a batch task runs, a random
 * backend process is SIGKILLed about every 10 s and started again. Afterwards every record is stored, downloaded
 * and indexed once, every batch line answered once, every process gives the same answer to the same query,
 * nothing acknowledged is lost, and callers saw only retryable answers (counted and printed). With both vector
 * stores (IRIS_VECTOR_STORE hnsw and pgvector).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildBackend } from '../../region-backend/test/data-sets/child-backend.js';
import { startImageServer, type ImageServer } from '../../region-backend/test/support/image-server.js';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { nativeServices, nativeSkipNote, startNativePostgres, type NativePostgres } from '../../region-backend/test/support/native-services.js';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import { vectorTable } from '../../region-backend/src/vectors/pgvector-schema.js';
import { prepareModels } from '../../region-backend/src/vision/prepare-models.js';
import { startScaleOutRegion, type ScaleOutRegion } from './support/scale-out-region.js';

/** 1,000 in `npm test`; fewer with IRIS_SCALE_OUT_PICTURES for a quick look. */
const PICTURES = Number(process.env.IRIS_SCALE_OUT_PICTURES ?? 1000);
const CHUNK = 50;
const BATCH_LINES = Math.min(40, PICTURES);
const PROCESSES = 3;
const KILL_EVERY_MS = 10_000;
/** Answers a caller may retry: the edge's "backend unavailable / timed out", busy, rate limited. */
const RETRYABLE = new Set([429, 502, 503, 504]);

const status = nativeServices();
const note = nativeSkipNote(status);
if (note) console.warn(note);

describe.runIf(status.available)('a region of three backend processes behind HAProxy, processes killed at random', () => {
  let postgres: NativePostgres;
  let images: ImageServer;
  const pictures: Buffer[] = [];
  let root: string;
  beforeAll(async () => {
    if (!status.available) return;
    // The converted models are made once before the region starts (as an image carries them, or a first start
    // makes them), in the cache every process is given: the kills exercise the region, not first-start conversion.
    await prepareModels();
    postgres = await startNativePostgres(status.services, { settings: ['max_connections=300'] });
    // Small generated photographs, every one different (a repeated picture would tie in the rankings).
    images = await startImageServer();
    for (let i = 0; i < PICTURES + BATCH_LINES; i++) pictures.push(await photoJpeg(96, 72, i + 1));
    pictures.forEach((picture, i) => images.set(`/img/${i}.jpg`, picture));
    root = mkdtempSync(path.join(os.tmpdir(), 'iris-scale-out-'));
  }, 900_000);
  afterAll(async () => {
    await images?.close();
    await postgres?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const startRegion = (store: 'hnsw' | 'pgvector'): Promise<ScaleOutRegion> => {
    if (!status.available) throw new Error('unreachable');
    return startScaleOutRegion({ services: status.services, postgres, root, name: store, store, processes: PROCESSES });
  };

  it.each(['hnsw', 'pgvector'] as const)('with the %s vector store', async (store) => {
    const began = Date.now();
    const region = await startRegion(store);
    const { platform } = region;
    const retried = new Map<string, number>();
    const refused: string[] = [];
    const stopped: ChildBackend[] = [];
    /** Calls until the answer is not a retryable one; counts the retryable ones by status. */
    const call = async (what: string, path: string, init: () => RequestInit = () => ({})): Promise<Response> => {
      for (;;) {
        const res = await platform.call(path, init());
        if (!RETRYABLE.has(res.status)) {
          if (!res.ok) refused.push(`${what}: ${res.status} ${await res.clone().text()}`);
          return res;
        }
        retried.set(`${what} ${res.status}`, (retried.get(`${what} ${res.status}`) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 250)); // back-off before the retry, as a client would
      }
    };
    const json = (body: unknown) => () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const form = (fields: Record<string, string>, files: Record<string, string> = {}) => () => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      for (const [k, v] of Object.entries(files)) f.append(k, new Blob([v], { type: 'text/plain' }), `${k}.txt`);
      return { method: 'POST', body: f };
    };

    let stop = () => {};
    try {
      const set = (await (await call('create set', '/image_sets/_0000014', json({ name: `scale-${store}` }))).json()) as { id: string };
      const setId = String(set.id);
      const service = (await (await call('create service', `/image_sets/_0000014/${setId}/services`, json({ name: 'svc', scenario: 'general' }))).json()) as { id: string };
      const serviceId = String(service.id);
      const urls = Array.from({ length: PICTURES }, (_, i) => images.url(`/img/${i}.jpg`));
      const batchUrls = Array.from({ length: BATCH_LINES }, (_, i) => images.url(`/img/${PICTURES + i}.jpg`));
      // The image server serves both stores' runs: count this run's fetches only.
      const fetchedBefore = urls.map((u) => images.hits(new URL(u).pathname));

      // Load: a random process SIGKILLed and started again, 10 s after the last one killed is back up (killing
      // faster on two loaded cores leaves the indexing lock holder too little life to load its models).
      let done = false;
      stop = () => void (done = true);
      let kills = 0;
      const killer = (async () => {
        while (!done) {
          await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
          if (done) break;
          const i = Math.floor(Math.random() * PROCESSES);
          await region.backends[i]!.kill('SIGKILL');
          stopped.push(region.backends[i]!);
          kills++;
          region.backends[i] = await region.start(i);
        }
      })();

      const searches: number[] = [];
      const queries = (async () => {
        const picture = pictures[3]!;
        while (!done) {
          const f = new FormData();
          f.append('search', new Blob([picture], { type: 'image/jpeg' }), 'q.jpg');
          const res = await call('search', `/search/${serviceId}`, () => ({ method: 'POST', body: f }));
          searches.push(res.status);
          // A caller's pace, not a wait for state: searches take the inference threads before indexing does.
          await new Promise((r) => setTimeout(r, 1000));
        }
      })();

      // Awaited below; a failure elsewhere ends the test first, and its region with it: no unhandled rejection then.
      for (const loop of [killer, queries]) loop.catch(() => {});

      const adding = (async () => {
        for (let i = 0; i < PICTURES; i += CHUNK) {
          const csv = urls.slice(i, i + CHUNK).map((u, j) => `${u},m${i + j}`).join('\n');
          const res = await call('add pictures', `/image_sets/_0000014/${setId}`, form({}, { urls_to_add: csv }));
          expect(res.status, await res.clone().text()).toBe(200);
        }
      })();

      const batch = (async () => {
        const prepared = await call('batch prepare', '/batch/_1000001/task/prepare', form({ service_id: '_0000024' }, { urls: batchUrls.join('\n') }));
        expect(prepared.status).toBe(200);
        const taskId = ((await prepared.json()) as { data: { task_id: string } }).data.task_id;
        expect((await call('batch apply', '/batch/_1000001/task/apply', form({ task_id: taskId }))).status).toBe(200);
        return taskId;
      })();

      await adding;
      const taskId = await batch;
      const indexed = await waitUntil(
        async () => (await (await call('service info', `/customer_services/_0000172/${serviceId}`)).json()) as { n_indexed: number; n_first_pass_only: number },
        (s) => s.n_indexed === PICTURES && s.n_first_pass_only === 0,
        600_000,
      );
      const task = await waitUntil(
        async () => ((await (await call('batch info', `/batch/_1000001/task/info/${taskId}`)).json()) as { data: { state: string; total: number; success: number; download_urls?: string[] } }).data,
        (t) => ['SUCCESS', 'FAILURE', 'REVOKED'].includes(t.state),
        600_000,
      );
      done = true;
      await Promise.all([killer, queries]);
      expect(indexed.n_indexed).toBe(PICTURES);
      expect(task).toMatchObject({ state: 'SUCCESS', total: BATCH_LINES, success: BATCH_LINES });

      // Every batch line answered once, in order.
      const lines: { line: number; url: string; result?: unknown; error?: { error_code: number; message: string } }[] = [];
      for (const link of task.download_urls ?? []) {
        const url = new URL(link);
        const res = await call('batch result', url.pathname + url.search);
        lines.push(...(await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as (typeof lines)[number]));
      }
      expect(lines.map((l) => l.line)).toEqual(batchUrls.map((_, i) => i));
      expect(lines.map((l) => l.url)).toEqual(batchUrls);
      expect(lines.every((l) => Boolean(l.result) !== Boolean(l.error))).toBe(true);
      const lineErrors = lines.filter((l) => l.error).map((l) => `${l.line}: ${l.error!.error_code} ${l.error!.message}`);

      // In PostgreSQL: one record per picture, downloaded; one live index item per record.
      const db = new pg.Client({ connectionString: platform.databaseUrls['cn-east'] });
      await db.connect();
      try {
        const records = (
          await db.query<{ n: number; urls: number; downloaded: number }>(
            `SELECT count(*)::int AS n, count(DISTINCT url)::int AS urls, count(*) FILTER (WHERE status = 'downloaded' AND blob_key IS NOT NULL)::int AS downloaded
             FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL`,
            [setId],
          )
        ).rows[0]!;
        expect(records).toEqual({ n: PICTURES, urls: PICTURES, downloaded: PICTURES });
        const items = (
          await db.query<{ n: number; records: number }>(
            `SELECT count(*)::int AS n, count(DISTINCT record_id)::int AS records FROM search_index_items WHERE service_id = $1 AND deleted_at IS NULL AND NOT first_pass_only`,
            [serviceId],
          )
        ).rows[0]!;
        expect(items).toEqual({ n: PICTURES, records: PICTURES });
        if (store === 'pgvector') {
          const index = (await db.query<{ no: string; type: 'vector' | 'halfvec'; dimension: number; size: string }>('SELECT no, type, dimension, size FROM iris_vector_indexes WHERE key = $1', [serviceId])).rows[0]!;
          const table = vectorTable({ type: index.type, dimension: index.dimension });
          const rows = (await db.query<{ n: number; ids: number }>(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM ${table} WHERE index_no = $1`, [index.no])).rows[0]!;
          expect({ ...rows, size: Number(index.size) }).toEqual({ n: PICTURES, ids: PICTURES, size: PICTURES });
        }
      } finally {
        await db.end();
      }

      // Each picture fetched (one stored record each, above); fetches repeated after kills or lease expiries are printed.
      const fetched = urls.map((u, i) => images.hits(new URL(u).pathname) - fetchedBefore[i]!);
      expect(fetched.every((n) => n >= 1)).toBe(true);
      const again = fetched.reduce((a, n) => a + n, 0) - PICTURES;

      // The same query answered identically by every process, each called directly.
      const picture = pictures[7]!;
      const answers: unknown[] = [];
      for (const backend of region.backends) {
        const boundary = 'scaleoutboundary';
        const body = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="search"; filename="q.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
          picture,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        const res = await backend.call({ method: 'POST', url: `/search/${serviceId}`, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
        expect(res.status, res.text).toBe(200);
        answers.push((res.json() as { results: { url: string; score: number }[] }).results.map((r) => [r.url, r.score]));
      }
      expect((answers[0] as [string][])[0]![0]).toBe(urls[7]);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);

      const seconds = Math.round((Date.now() - began) / 1000);
      console.log(
        `scale-out ${store}: ${kills} kills in ${seconds} s; ${searches.length} searches; retryable answers seen: ` +
          `${JSON.stringify(Object.fromEntries(retried))}; pictures fetched more than once: ${again}; batch lines answered with an error: ` +
          `${lineErrors.length ? lineErrors.join('; ') : 'none'}`,
      );
      // A refusal comes with what the backends and the edge logged about its request.
      const logsDir = path.join(platform.dataDir, 'logs');
      const edgeLog = () => (existsSync(logsDir) ? readdirSync(logsDir).map((f) => readFileSync(path.join(logsDir, f), 'utf8')).join('\n') : '');
      const explained = refused.map((answer) => {
        const id = /"request_id":"(\w+)"/.exec(answer)?.[1];
        if (!id) return answer;
        const lines = [...stopped, ...region.backends].flatMap((b) => b.logLines(id)).concat(edgeLog().split('\n').filter((l) => l.includes(id)));
        return [answer, ...lines].join('\n');
      });
      expect(explained).toEqual([]);
      expect(kills).toBeGreaterThan(0);
    } finally {
      stop();
      await region.close();
    }
  }, 1_200_000);
});
