/**
 * Usage on a real backend (real PostgreSQL, real downloads from a loopback server, real worker threads):
 * calls, a stored picture and an analysis are counted in memory, flushed, and read back per day and service;
 * another account sees none of them; the range is refused before any SQL when it is not a bounded range of days.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId, USAGE_MAX_DAYS } from '@iris/shared';
import { photoJpeg } from '../../../test/support/test-images.js';
import { startImageServer, type ImageServer } from '../../../test/support/image-server.js';
import { startTestBackend, type TestBackend } from '../../../test/support/test-app.js';
import { waitUntil } from '../../../test/support/wait-for.js';
import { apply, prepare, waitForState } from '../../../test/batch/batch-helpers.js';
import { UsageMeter } from './usage-meter.js';
import { parseUsageRange } from './usage.params.js';

interface Usage {
  from: string;
  to: string;
  region: string;
  results: { day: string; service: string; calls: number; pictures_analysed: number; pictures_stored: number; bytes_stored: number; inference_seconds: number; batch_lines: number }[];
  totals: Record<string, number>;
  stored: { records: number; bytes: number };
  quotas: Record<string, number>;
}

describe('usage per account, day and service', () => {
  let backend: TestBackend;
  let images: ImageServer;
  const imageSet = newResourceId();
  const today = new Date().toISOString().slice(0, 10);

  const usage = async (accountId: number, query = '') => {
    const res = await backend.call({ method: 'GET', url: `/iris/usage${query}`, accountId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Usage;
  };

  beforeAll(async () => {
    [backend, images] = await Promise.all([startTestBackend({ IRIS_USAGE_FLUSH_SECONDS: '0.2' }), startImageServer()]);
    images.set('/a.jpg', await photoJpeg(320, 240, 3));
  });
  afterAll(async () => {
    await Promise.all([backend?.close(), images?.close()]);
  });

  it('counts calls, stored pictures and analyses, and reads them back per service beside the quotas', async () => {
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'usage' } })).statusCode).toBe(200);
    const add = await backend.call({ method: 'POST', url: `/image_sets/_0000014/${imageSet}`, payload: { image_url: images.url('/a.jpg'), meta: 'one' } });
    expect(add.statusCode, add.body).toBe(200);
    const colour = await backend.call({
      method: 'POST', url: '/color/_0000072', payload: new URLSearchParams({ url: images.url('/a.jpg'), granularity: 'major', return_type: 'basic' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(colour.statusCode, colour.body).toBe(200);
    // An unknown service id, or a made-up word, is counted under its family, not as a row of its own.
    expect((await backend.call({ method: 'POST', url: '/color/made-up-service', payload: {} })).statusCode).toBeGreaterThanOrEqual(400);
    expect((await backend.call({ method: 'POST', url: '/made-up-word/made-up-service', payload: {} })).statusCode).toBeGreaterThanOrEqual(400);

    const seen = await waitUntil(
      () => usage(1, `?from=${today}&to=${today}`),
      (u) => u.results.some((r) => r.service === '_0000072' && r.pictures_analysed === 1) && u.results.some((r) => r.service === 'analysis' && r.calls >= 2) && u.results.some((r) => r.service === 'image_sets' && r.calls >= 2 && r.pictures_stored === 1),
      30_000,
    );
    const sets = seen.results.find((r) => r.service === 'image_sets')!;
    expect(sets).toMatchObject({ day: today, pictures_stored: 1, pictures_analysed: 0 });
    expect(sets.bytes_stored).toBeGreaterThan(1000);
    const analysed = seen.results.find((r) => r.service === '_0000072')!;
    expect(analysed.calls).toBe(1);
    expect(analysed.inference_seconds).toBeGreaterThan(0);
    expect(seen.results.some((r) => r.service.startsWith('made-up'))).toBe(false);
    // Both refused calls reached the analysis route (`/:word/:service_id`): counted under its family, once each.
    expect(seen.results.find((r) => r.service === 'analysis')?.calls).toBe(2);
    expect(seen.totals.pictures_stored).toBe(1);
    expect(seen.totals.calls).toBe(seen.results.reduce((sum, r) => sum + r.calls, 0));
    expect(seen.stored.records).toBe(1);
    expect(seen.stored.bytes).toBe(sets.bytes_stored);
    expect(seen.quotas.image_sets).toBe(100);
    expect(seen.region).toBe('cn-east');

    // Another account: nothing of account 1 (its own usage call is counted once flushed).
    const other = await usage(2, `?from=${today}&to=${today}`);
    expect(other.results.filter((r) => r.service !== 'iris')).toEqual([]);
    expect(other.stored).toEqual({ records: 0, bytes: 0 });

    // The Prometheus totals of the region: one series per measure, none per account.
    const text = await backend.app.metrics.registry.metrics();
    expect(text).toMatch(/iris_usage_total\{[^}]*measure="pictures_analysed"[^}]*\} 1\n/);
    expect(text).not.toMatch(/iris_usage_total\{[^}]*account/);
  });

  it('counts a batch task’s lines and analyses under its service, and its support document shows the failed line', async () => {
    images.set('/b.jpg', await photoJpeg(300, 200, 5));
    const prepared = await prepare(backend, '_0000072', [images.url('/a.jpg'), images.url('/b.jpg'), images.url('/gone.jpg')].join('\n'));
    expect(prepared.statusCode, prepared.body).toBe(200);
    expect((await apply(backend, prepared.taskId)).statusCode).toBe(200);
    await waitForState(backend, prepared.taskId, ['SUCCESS']);
    const seen = await waitUntil(
      () => usage(1, `?from=${today}&to=${today}`),
      (u) => u.results.some((r) => r.service === '_0000072' && r.batch_lines === 3),
      30_000,
    );
    // One analysis call earlier, two pictures of the task now; the missing one is a line, not an analysis.
    expect(seen.results.find((r) => r.service === '_0000072')).toMatchObject({ batch_lines: 3, pictures_analysed: 3 });

    const state = await backend.call({ method: 'GET', url: `/iris/batch_tasks/${prepared.taskId}/state` });
    expect(state.statusCode, state.body).toBe(200);
    expect(state.json()).toMatchObject({ kind: 'batch_tasks', configuration: { state: 'SUCCESS', service_id: '_0000072' }, counters: { total: 3, answered: 3, pending: 0 } });
    expect(state.json().recent_failures).toEqual([{ at: null, ref: `line 2: ${images.url('/gone.jpg')}`, message: expect.stringMatching(/404/) }]);
  });

  it('adds the counts of later flushes to the day’s row', async () => {
    expect((await usage(3)).totals.calls).toBe(0);
    await backend.app.usage.flush();
    backend.app.usage.add({ accountId: 3, service: 'image_sets' }, { calls: 5, bytesStored: 7 });
    await backend.app.usage.flush();
    backend.app.usage.add({ accountId: 3, service: 'image_sets' }, { calls: 2 });
    await backend.app.usage.flush();
    const after = await usage(3);
    expect(after.results.find((r) => r.service === 'image_sets')).toMatchObject({ calls: 7, bytes_stored: 7 });
    // The first usage call of account 3 is counted too (under `iris`).
    expect(after.totals.calls).toBe(8);
  });

  it('adds the concurrent flushes of several processes, rows met in opposite orders, without a deadlock or a lost count', async () => {
    const ACCOUNTS = 2000;
    const meters = [new UsageMeter(backend.app.db.pool), new UsageMeter(backend.app.db.pool)];
    for (let round = 0; round < 5; round++) {
      meters.forEach((meter, i) => {
        for (let a = 0; a < ACCOUNTS; a++) meter.add({ accountId: 100 + (i === 0 ? a : ACCOUNTS - 1 - a), service: 'search' }, { calls: 1, inferenceMs: 2.5 });
      });
      await Promise.all(meters.map((meter) => meter.flush()));
    }
    const { rows } = await backend.app.db.pool.query(`SELECT sum(calls)::int AS calls, count(*)::int AS n FROM usage_daily WHERE account_id BETWEEN 100 AND ${100 + ACCOUNTS - 1}`);
    expect(rows[0]).toEqual({ calls: 10 * ACCOUNTS, n: ACCOUNTS });
  });

  it('leaves calls that name no account uncounted (health checks, unsigned calls)', async () => {
    expect((await backend.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await backend.app.inject({ method: 'GET', url: '/iris/usage' })).statusCode).toBe(401);
  });

  it('refuses ranges that are not bounded ranges of real days, before any SQL', async () => {
    for (const query of ['?from=2025-02-30', '?to=2025-13-01', '?from=2026-01-02&to=2026-01-01', '?from=1999-12-31&to=2000-01-01', '?from=2024-01-01&to=2025-12-31', '?from=x'.padEnd(5000, 'x'), '?from=2025-01-01&from=2025-01-02']) {
      const res = await backend.call({ method: 'GET', url: `/iris/usage${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ error_code: 5001 });
    }
    const defaults = await usage(1);
    expect(defaults.to).toBe(today);
    expect((Date.parse(defaults.to) - Date.parse(defaults.from)) / 86_400_000).toBe(29);
  });

  it('accepts exactly the in-order ranges of real days within the bound (property)', () => {
    const day = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    const text = fc.oneof(day, fc.string({ maxLength: 12 }), fc.constantFrom('2025-02-29', '2024-02-29', '0000-00-00', '2025-1-1', ' 2025-01-01'));
    fc.assert(
      fc.property(text, text, (from, to) => {
        let range: { from: string; to: string } | null = null;
        try {
          range = parseUsageRange({ from, to });
        } catch (err) {
          expect((err as { code?: number }).code).toBe(5001);
        }
        const real = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s) && s >= '2000-01-01';
        const span = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
        const valid = real(from) && real(to) && span >= 1 && span <= USAGE_MAX_DAYS;
        expect(range !== null).toBe(valid);
        if (range) expect(range).toEqual({ from, to });
      }),
      { numRuns: 500 },
    );
  });
  it('writes the last counts when the server shuts down', async () => {
    backend.app.usage.add({ accountId: 4, service: 'batch' }, { batchLines: 3 });
    await backend.app.close();
    const db = new pg.Client({ connectionString: backend.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT batch_lines::int AS lines FROM usage_daily WHERE account_id = 4 AND service = 'batch'`);
      expect(rows).toEqual([{ lines: 3 }]);
    } finally {
      await db.end();
    }
  });
});
