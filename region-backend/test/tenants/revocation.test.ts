/**
 * Revocation stops queued work at once: the operator call the edge makes when an account is disabled fails
 * its running batch task (FAILURE with the reason, items gone) and its pending downloads; a revoked grant
 * stops only the tasks of that service; another account's work goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { apply, prepare } from '../batch/batch-helpers.js';
import { waitUntil } from '../support/wait-for.js';
import { createImageSet, fileUpload } from '../data-sets/helpers.js';
import { startImageServer, type ImageServer } from '../data-sets/image-server.js';

describe('revocation of queued work', () => {
  let backend: TestBackend;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer({ delayMs: 400 });
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
    await images?.close();
  });

  const revoke = (payload: object) => backend.call({ method: 'POST', url: '/admin/revocations', accountId: 0, payload });
  const startTask = async (accountId: number, serviceId: string, first: number) => {
    const urls = Array.from({ length: 40 }, (_, i) => images.url(first + i)).join('\n');
    const prepared = await prepare(backend, serviceId, urls, { accountId });
    expect(prepared.statusCode, prepared.body).toBe(200);
    expect((await apply(backend, prepared.taskId, { accountId })).statusCode).toBe(200);
    return prepared.taskId;
  };
  const stateOf = async (taskId: string) => (await backend.app.db.pool.query('SELECT state FROM batch_tasks WHERE id = $1', [taskId])).rows[0]?.state as string;
  const waitForState = async (taskId: string, states: string[], timeoutMs: number) => ({ state: await waitUntil(() => stateOf(taskId), (s) => states.includes(s), timeoutMs) });
  const itemsOf = async (taskId: string) => Number((await backend.app.db.pool.query('SELECT count(*) AS n FROM batch_items WHERE task_id = $1', [taskId])).rows[0].n);

  it('is operator-only', async () => {
    const res = await backend.call({ method: 'POST', url: '/admin/revocations', accountId: 5, payload: { account_id: 5 } });
    expect(res.statusCode).toBe(404);
  });

  it('a disabled account: its running batch task fails with the reason and its downloads stop; others go on', async () => {
    const doomed = await startTask(71, '_0000072', 100);
    const other = await startTask(72, '_0000072', 200);
    await waitForState(doomed, ['STARTED'], 60_000);
    const setId = await createImageSet(backend, 'revoked', 71);
    const upload = fileUpload('urls_to_add', Array.from({ length: 30 }, (_, i) => `${images.url(300 + i)},m`).join('\n'));
    expect((await backend.call({ method: 'POST', url: `/image_sets/_0000014/${setId}`, accountId: 71, payload: upload.payload, headers: upload.headers })).statusCode).toBe(200);

    const res = await revoke({ account_id: 71 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, batch_tasks: 1 });
    expect(res.json().downloads).toBeGreaterThan(0);

    const failed = await waitForState(doomed, ['FAILURE', 'SUCCESS'], 10_000);
    expect(failed.state).toBe('FAILURE');
    const message = (await backend.app.db.pool.query('SELECT message FROM batch_tasks WHERE id = $1', [doomed])).rows[0].message;
    expect(message).toMatch(/account is disabled/);
    expect(await itemsOf(doomed)).toBe(0);
    // Its pending downloads failed with the reason, and stay failed (a download in flight cannot revive one).
    await new Promise((r) => setTimeout(r, 1500));
    const records = await backend.app.db.pool.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM data_set_records WHERE set_id = $1 GROUP BY status',
      [setId],
    );
    const byStatus = Object.fromEntries(records.rows.map((r) => [r.status, Number(r.n)]));
    expect(byStatus.pending ?? 0).toBe(0);
    expect(byStatus.failed).toBeGreaterThan(20);
    // The other account's task is untouched and finishes.
    expect((await waitForState(other, ['SUCCESS', 'FAILURE'], 120_000)).state).toBe('SUCCESS');
    // A FAILURE stays FAILURE.
    expect((await waitForState(doomed, ['FAILURE'], 1000)).state).toBe('FAILURE');
  }, 180_000);

  it('a revoked grant stops only the tasks of that service', async () => {
    const colour = await startTask(73, '_0000072', 400);
    const faces = await startTask(73, '_0000049', 500);
    const res = await revoke({ account_id: 73, service_id: '_0000072' });
    expect(res.json()).toMatchObject({ batch_tasks: 1, downloads: 0, trainings: 0 });
    expect((await waitForState(colour, ['FAILURE', 'SUCCESS'], 10_000)).state).toBe('FAILURE');
    // Alone this takes seconds; beside the rest of the suite on two cores, minutes.
    expect((await waitForState(faces, ['SUCCESS', 'FAILURE'], 270_000)).state).toBe('SUCCESS');
  }, 300_000);
});
