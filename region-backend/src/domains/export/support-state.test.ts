/**
 * Support documents on a real backend (real PostgreSQL): a batch task's settings, counters and latest error
 * lines; a search service's and a custom service's settings with their set's failed downloads; all bounded
 * and scoped to the account. The rows are written as the batch worker, the indexer and training write them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId, SupportState, SUPPORT_MAX_FAILURES } from '@iris/shared';
import { startTestBackend, type TestBackend } from '../../../test/support/test-app.js';

describe('support documents of tasks and services', () => {
  let backend: TestBackend;
  const task = newResourceId();
  const imageSet = newResourceId();
  const searchService = newResourceId();
  const customService = newResourceId();
  const sql = (text: string, values: unknown[]) => backend.app.db.pool.query(text, values);
  const state = async (kind: string, id: string, accountId = 1) => backend.call({ method: 'GET', url: `/iris/${kind}/${id}/state`, accountId });

  beforeAll(async () => {
    backend = await startTestBackend({}, { workers: false });
    await sql(`INSERT INTO batch_tasks (id, account_id, service_id, params, state, total, success, received_at, started_at) VALUES ($1, 1, '_0000072', '{"granularity":"major"}', 'STARTED', 60, 50, now(), now())`, [task]);
    // 50 answered lines written as the worker writes them (JSON.stringify), every 4th an error line; the url of
    // line 8 and every result hold the text `"error":{` too.
    await sql(
      `INSERT INTO batch_items (task_id, line, url, state, output)
       SELECT $1, g, u, 'done',
              '{"url":' || to_json(u)::text || ',"line":' || g ||
              CASE WHEN g % 4 = 0 THEN ',"error":{"error_code":400004,"message":"image cannot be downloaded: HTTP 404"}}'
                   ELSE ',"result":{"note":"\\"error\\":{"}}' END
       FROM (SELECT g, CASE WHEN g = 8 THEN 'http://x/"error":{' ELSE 'http://x/' || g END AS u FROM generate_series(0, 49) g) lines`,
      [task],
    );
    await sql(`INSERT INTO batch_items (task_id, line, url) SELECT $1, g, 'http://x/' || g FROM generate_series(50, 59) g`, [task]);
    expect((await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: imageSet, payload: { name: 'indexed' } })).statusCode).toBe(200);
    await sql(
      `INSERT INTO data_set_records (set_id, url, status, last_error) SELECT $1, 'http://x/r' || g, CASE WHEN g % 2 = 0 THEN 'failed' ELSE 'downloaded' END, CASE WHEN g % 2 = 0 THEN 'HTTP 404' END FROM generate_series(1, 60) g`,
      [imageSet],
    );
    await sql(`INSERT INTO search_services (id, account_id, kind, name, scenario, set_id, pipeline, n_indexed) VALUES ($1, 1, 'image_set', 'svc', 'default', $2, 'p1', 30)`, [searchService, imageSet]);
    await sql(`INSERT INTO custom_services (id, account_id, name, training_set_id, status, stage, message) VALUES ($1, 1, 'shapes', 'gone-set', 'failed', 'failed', $2)`, [customService, 'x'.repeat(5000)]);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('gives a batch task’s settings, counters and latest error lines', async () => {
    const res = await state('batch_tasks', task);
    expect(res.statusCode, res.body).toBe(200);
    const doc = SupportState.parse(res.json());
    expect(doc.configuration).toMatchObject({ service_id: '_0000072', state: 'STARTED', params: { granularity: 'major' } });
    expect(doc.configuration.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(doc.counters).toMatchObject({ total: 60, answered: 50, pending: 10, running: 0 });
    expect(doc.recent_failures.map((f) => f.ref.split(':')[0])).toEqual([48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0].map((n) => `line ${n}`));
    expect(doc.recent_failures[0]!.message).toBe('400004 image cannot be downloaded: HTTP 404');
  });

  it('gives a search service’s index figures and its set’s latest failed downloads, at most the bound', async () => {
    const doc = SupportState.parse((await state('search_services', searchService)).json());
    expect(doc.configuration).toMatchObject({ name: 'svc', set_id: imageSet, pipeline: 'p1' });
    expect(doc.counters).toMatchObject({ n_indexed: 30, records: 60, downloaded: 30, failed: 30, pending: 0 });
    expect(doc.recent_failures).toHaveLength(SUPPORT_MAX_FAILURES);
    expect(doc.recent_failures[0]).toMatchObject({ message: 'HTTP 404' });
  });

  it('cuts long messages, and a custom service whose set is gone still has its document', async () => {
    const doc = SupportState.parse((await state('custom_services', customService)).json());
    expect(doc.configuration).toMatchObject({ status: 'failed', training_set_id: 'gone-set' });
    expect(String(doc.configuration.message).length).toBeLessThanOrEqual(1001);
    expect(doc.recent_failures).toEqual([]);
  });

  it('is scoped to the account, and refuses unknown kinds and hostile ids', async () => {
    expect((await state('batch_tasks', task, 2)).json()).toMatchObject({ error_code: 400011 });
    expect((await state('search_services', searchService, 2)).json()).toMatchObject({ error_code: 2002 });
    expect((await state('custom_services', customService, 2)).json()).toMatchObject({ error_code: 2002 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('batch_tasks', 'search_services', 'custom_services', 'image_sets', 'tasks'), // `.` and `..` are not ids a path can carry: every HTTP layer resolves them as dot segments.
        fc.string({ minLength: 1, maxLength: 300 }).filter((id) => id !== '.' && id !== '..'), async (kind, id) => {
        const res = await state(kind, encodeURIComponent(id));
        expect([400, 404]).toContain(res.statusCode);
        expect(res.json()).toHaveProperty('error_code');
      }),
      { numRuns: 60 },
    );
  });
});
