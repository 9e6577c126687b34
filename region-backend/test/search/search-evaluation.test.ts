/**
 * A search service measures itself, on one real backend (embedded PostgreSQL, real models, pg-boss): the
 * evaluation samples the service's own pictures, edits them, searches with them through the customers' path and
 * reports recall per edit and latency; it survives a restart of the backend midway; hostile bodies, another
 * account's service and a second evaluation at once are refused with the specification's shapes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EVALUATION_EDITS, EVALUATION_EDITS, EVALUATION_SAMPLE, type SearchEvaluationObject } from '@iris/shared';
import { parseEvaluationParams } from '../../src/domains/search-evaluation/evaluation-params.js';
import type { ImageServer } from '../support/image-server.js';
import { addImagesCsv, createImageSet, createService, searchEnvironment, searchImages, serveImages, startSearchBackend, waitFor, waitIndexed, type SearchBackend } from './search-fixtures.js';

const PICTURES = 6;
const path = (id: string) => `/customer_services/_0000172/${id}/evaluation`;

describe('search service self-evaluation', () => {
  let env: Awaited<ReturnType<typeof searchEnvironment>>;
  let backend: SearchBackend;
  let server: ImageServer;
  let serviceId: string;
  let otherServiceId: string;
  // A turn of one second: the evaluation hands over between turns, as it does on a busy backend; one
  // evaluation at a time per account.
  const start = () => startSearchBackend({ ...env, env: { IRIS_SEARCH_POLL_MS: '300', IRIS_EVALUATION_TURN_SECONDS: '1', IRIS_EVALUATIONS_PER_ACCOUNT: '1' } });
  const get = async (id = serviceId) => (await backend.call({ method: 'GET', url: path(id) })).json() as SearchEvaluationObject;

  beforeAll(async () => {
    const images = (await searchImages()).slice(0, PICTURES);
    server = await serveImages(images);
    env = await searchEnvironment();
    backend = await start();
    const setId = await createImageSet(backend);
    await addImagesCsv(backend, setId, images.map((_, n) => `${server.url(`/img/${n}.jpg`)},meta ${n},`));
    serviceId = (await createService(backend, setId)).id;
    otherServiceId = (await createService(backend, setId, { name: 'second', scenario: 'general' })).id;
    await waitIndexed(backend, serviceId, PICTURES);
  });
  afterAll(async () => {
    await backend?.close();
    await server?.close();
    await env?.dispose();
  });

  it('answers state none before the first evaluation', async () => {
    const none = await get();
    expect(none).toMatchObject({ service_id: serviceId, state: 'none', report: null, progress: { done: 0, total: 0 } });
  });

  it('runs in the background, survives a restart, and reports recall per edit and latency', async () => {
    const started = await backend.call({ method: 'POST', url: path(serviceId), payload: { sample_size: 4, edits: 'crop50,grey,thumb128' } });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ state: 'queued', sample_size: 4, edits: ['crop50', 'grey', 'thumb128'], progress: { done: 0, total: 12 } });

    // One evaluation at a time per service, and (here) one per account.
    const again = await backend.call({ method: 'POST', url: path(serviceId), payload: {} });
    expect([again.statusCode, again.json().error_code]).toEqual([403, 3012]);
    const another = await backend.call({ method: 'POST', url: path(otherServiceId), payload: { sample_size: 2 } });
    expect([another.statusCode, another.json().error_code]).toEqual([403, 3012]);

    // Stopped midway: what was answered stays, the rest is done by the next process.
    await waitFor(get, (e) => e.progress.done >= 3, 120_000);
    await backend.close();
    backend = await start();
    const done = await waitFor(get, (e) => e.state === 'done' || e.state === 'failed', 240_000);
    expect(done.message).toBeNull();
    expect(done.state).toBe('done');
    expect(done.progress).toEqual({ done: 12, total: 12 });
    const report = done.report!;
    expect(report.records).toBe(4);
    expect(report.queries).toBe(12);
    expect(report.per_edit.map((e) => [e.edit, e.queries])).toEqual([['crop50', 4], ['grey', 4], ['thumb128', 4]]);
    // These edits of a picture in a six-picture catalogue are found: the customers' path really ran.
    expect(report.overall.recall_at_10).toBe(1);
    expect(report.overall.recall_at_1).toBeGreaterThanOrEqual(0.75);
    expect(report.latency_ms.p50).toBeGreaterThan(0);
    expect(report.latency_ms.p95).toBeGreaterThanOrEqual(report.latency_ms.p50);
    expect(report.rerank_candidates).toBeGreaterThan(0);
    expect(done.finished_at).not.toBeNull();
  }, 420_000);

  it('refuses hostile bodies (400/5001) and another account\'s service (404/2002), without starting anything', async () => {
    for (const payload of [{ sample_size: 1_000_000_000 }, { sample_size: 0 }, { sample_size: '12abc' }, { sample_size: -3 }, { edits: ['crop50', 'explode'] }, { edits: 'x'.repeat(5000) }, { edits: Array.from({ length: 100 }, () => 'grey') }]) {
      const res = await backend.call({ method: 'POST', url: path(otherServiceId), payload });
      expect([res.statusCode, res.json().error_code], JSON.stringify(payload).slice(0, 80)).toEqual([400, 5001]);
    }
    for (const method of ['GET', 'POST']) {
      const foreign = await backend.call({ method, url: path(serviceId), accountId: 999, payload: method === 'POST' ? {} : undefined });
      expect([foreign.statusCode, foreign.json().error_code]).toEqual([404, 2002]);
      const unknown = await backend.call({ method, url: path('doesnotexist0000'), payload: method === 'POST' ? {} : undefined });
      expect([unknown.statusCode, unknown.json().error_code]).toEqual([404, 2002]);
    }
    expect((await get(otherServiceId)).state).toBe('none');
  });
});

describe('evaluation request body', () => {
  it('accepts exactly sample sizes 1..max and known edits, and keeps the edits in order without repeats', () => {
    fc.assert(
      fc.property(
        fc.option(fc.oneof(fc.integer({ min: -10, max: EVALUATION_SAMPLE.max * 3 }), fc.string({ maxLength: 12 })), { nil: undefined }),
        fc.option(fc.oneof(fc.array(fc.oneof(fc.constantFrom(...EVALUATION_EDITS), fc.string({ maxLength: 10 })), { maxLength: 12 }), fc.string({ maxLength: 40 })), { nil: undefined }),
        (sampleSize, edits) => {
          const names = edits === undefined ? [] : (Array.isArray(edits) ? edits : edits.split(',')).map((e) => e.trim()).filter(Boolean);
          const text = sampleSize === undefined ? '' : String(sampleSize).trim();
          const sizeOk = text === '' || (/^\+?\d+$/.test(text) && Number(text) >= 1 && Number(text) <= EVALUATION_SAMPLE.max);
          const editsOk = names.every((n) => (EVALUATION_EDITS as readonly string[]).includes(n));
          let parsed: ReturnType<typeof parseEvaluationParams> | null = null;
          try {
            parsed = parseEvaluationParams({ sample_size: sampleSize, edits });
          } catch (err) {
            expect((err as { code?: number }).code).toBe(5001);
          }
          expect(parsed !== null).toBe(sizeOk && editsOk);
          if (!parsed) return;
          expect(parsed.sampleSize).toBe(text === '' ? EVALUATION_SAMPLE.default : Number(text));
          expect(parsed.edits).toEqual(names.length ? [...new Set(names)] : [...DEFAULT_EVALUATION_EDITS]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
