/**
 * What batch tasks keep is bounded: an account's open tasks and kept batch bytes are limited (400009 in the
 * batch family's shape, nothing stored for the refused prepare), a prepared task never applied expires
 * (FAILURE, its file and lines deleted), and a finished task is deleted with its files after the retention
 * period. The sweep is run as the job runs it, twice at once as two processes would.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepBatchTasks } from '../../src/domains/batch/batch-sweep.js';
import { batchFilesDir } from '../../src/domains/batch/batch.domain.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { apply, expectBatchError, info, prepare } from './batch-helpers.js';

const SERVICE = '_0000072';
const HOUR = 3_600_000;

describe('batch limits, expiry and retention', () => {
  let backend: TestBackend;
  let filesDir: string;
  beforeAll(async () => {
    backend = await startTestBackend(
      { IRIS_BATCH_MAX_OPEN_TASKS: '2', IRIS_BATCH_MAX_KEPT_MB: '4', IRIS_BATCH_PREPARED_HOURS: '24', IRIS_BATCH_RETENTION_DAYS: '7' },
      { workers: false },
    );
    filesDir = batchFilesDir(backend.config);
  });
  afterAll(() => backend?.close());

  const urls = (count: number, tag: string) => Array.from({ length: count }, (_, i) => `http://images.example.com/${tag}/${String(i).padStart(40, '0')}.jpg`).join('\n');
  const sweep = (hoursFromNow: number) =>
    sweepBatchTasks(backend.app.db.pool, { preparedMs: backend.config.batch.preparedMs, retentionMs: backend.config.batch.retentionMs, filesDir, now: new Date(Date.now() + hoursFromNow * HOUR) });
  const items = async (taskId: string) => Number((await backend.app.db.pool.query('SELECT count(*) AS n FROM batch_items WHERE task_id = $1', [taskId])).rows[0].n);

  it('refuses a prepare past the account’s open tasks or kept bytes with 400009, storing nothing for it', async () => {
    const first = await prepare(backend, SERVICE, urls(3, 'a'), { accountId: 91 });
    const second = await prepare(backend, SERVICE, urls(3, 'b'), { accountId: 91 });
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const third = await prepare(backend, SERVICE, urls(3, 'c'), { accountId: 91 });
    expect(expectBatchError(third, 400009).message).toMatch(/at most 2 at once/);
    expect(existsSync(path.join(filesDir, third.taskId))).toBe(false);
    // Another account is not limited by this one's tasks.
    expect((await prepare(backend, SERVICE, urls(3, 'd'), { accountId: 93 })).statusCode).toBe(200);

    // 4 MB kept per account: two lists of about 2.5 MB do not fit. (Each is past the 2 MiB a part may hold in
    // memory: it is scanned from its temp file as it is read, and copied as a file.)
    const big = urls(35_000, 'e');
    expect(big.length).toBeGreaterThan(2_500_000);
    const stored = await prepare(backend, SERVICE, big, { accountId: 92 });
    expect(stored.statusCode).toBe(200);
    expect(stored.json().data).toMatchObject({ total: 35_000, state: 'RECEIVED' });
    expect(readFileSync(path.join(filesDir, stored.taskId, 'urls.txt'), 'utf8')).toBe(big);
    const over = await prepare(backend, SERVICE, urls(35_000, 'f'), { accountId: 92 });
    expect(expectBatchError(over, 400009).message).toMatch(/batch files/);
    expect(existsSync(path.join(filesDir, over.taskId))).toBe(false);
  });

  it('expires prepared tasks never applied, then deletes finished tasks after the retention period, two sweeps at once', async () => {
    const prepared = await prepare(backend, SERVICE, urls(4, 'g'), { accountId: 94 });
    const revoked = await prepare(backend, SERVICE, urls(4, 'h'), { accountId: 94 });
    expect((await apply(backend, revoked.taskId, { accountId: 94 })).statusCode).toBe(200);
    expect((await backend.call({ method: 'POST', url: `/batch/_1000001/task/revoke/${revoked.taskId}`, accountId: 94 })).statusCode).toBe(200);

    // An hour on: nothing is due.
    expect(await sweep(1)).toMatchObject({ expired: 0, deleted: 0 });
    expect((await info(backend, prepared.taskId, 94)).json().data.state).toBe('RECEIVED');

    // A day on: the prepared task has expired, as two processes sweeping at once agree.
    const day = await Promise.all([sweep(25), sweep(25)]);
    expect(day[0].expired + day[1].expired).toBeGreaterThanOrEqual(1);
    expect((await info(backend, prepared.taskId, 94)).json().data.state).toBe('FAILURE');
    expect(await items(prepared.taskId)).toBe(0);
    expect(existsSync(path.join(filesDir, prepared.taskId, 'urls.txt'))).toBe(false);
    expectBatchError(await apply(backend, prepared.taskId, { accountId: 94 }), 400011);
    // Its limits are freed: account 91's two expired tasks no longer count as open.
    expect((await prepare(backend, SERVICE, urls(3, 'i'), { accountId: 91 })).statusCode).toBe(200);

    // Eight days on: finished tasks are gone, rows, lines and files.
    const week = await Promise.all([sweep(8 * 24 + 26), sweep(8 * 24 + 26)]);
    expect(week[0].deleted + week[1].deleted).toBeGreaterThanOrEqual(2);
    for (const taskId of [prepared.taskId, revoked.taskId]) {
      expectBatchError(await info(backend, taskId, 94), 400011);
      expect(existsSync(path.join(filesDir, taskId))).toBe(false);
      expect(await items(taskId)).toBe(0);
    }
    // Account 92's kept bytes went with its task: a list of the same size fits again.
    expect((await prepare(backend, SERVICE, urls(35_000, 'j'), { accountId: 92 })).statusCode).toBe(200);
  });
});
