/**
 * Durability: a backend process running a batch task is killed (SIGKILL) part-way and started again; the
 * task finishes with every URL answered exactly once, in input order, and only the lines that were in
 * flight at the kill are downloaded a second time. A backend that stops gracefully mid-task hands the rest
 * of it to the next process through the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startImageServer, type ImageServer } from '../data-sets/image-server.js';
import { callSigned, multipart, TEST_SECRET } from '../support/test-app.js';
import { startCrashHarness, type CrashHarness } from '../support/crash-harness.js';
import { jsonLines, linkPath, type TaskData } from './batch-helpers.js';

const URLS = 300;

describe('batch tasks survive a killed backend', () => {
  let harness: CrashHarness;
  let images: ImageServer;

  beforeAll(async () => {
    harness = await startCrashHarness('batch-crash');
    // Each image takes a while to serve, so the kill lands mid-task.
    images = await startImageServer({ delayMs: 40 });
  });
  afterAll(async () => {
    await harness?.close();
    await images?.close();
  });

  it('finishes a task after SIGKILL and restart, answering every URL exactly once', async () => {
    const env = { IRIS_BATCH_CONCURRENCY: '4', IRIS_BATCH_LEASE_SECONDS: '3', IRIS_BATCH_LINES_PER_FILE: '200' };
    const first = await harness.startBackend(env);
    const urls = Array.from({ length: URLS }, (_, i) => images.url(i, (['jpg', 'png', 'webp', 'gif'] as const)[i % 4]));
    const taskId = newResourceId();
    const upload = multipart({ service_id: '_0000072', granularity: 'major', return_type: 'basic', urls: { filename: 'urls.txt', content: urls.join('\n') } });
    const prepared = await first.call({ method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: taskId, body: upload.payload, headers: upload.headers });
    expect(prepared.status).toBe(200);
    const applied = await first.call({ method: 'POST', url: '/batch/_1000001/task/apply', body: `task_id=${taskId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(applied.status).toBe(200);

    const progress = async () => (await harness.pool.query<{ success: number; state: string }>('SELECT success, state FROM batch_tasks WHERE id = $1', [taskId])).rows[0]!;
    const until = Date.now() + 180_000;
    while ((await progress()).success < 60) {
      if (Date.now() > until) throw new Error(`the task did not progress: ${JSON.stringify(await progress())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill('SIGKILL');
    const atKill = await progress();
    expect(atKill.state).toBe('STARTED');
    expect(atKill.success).toBeLessThan(URLS);
    const inFlight = Number((await harness.pool.query(`SELECT count(*) AS n FROM batch_items WHERE task_id = $1 AND state = 'running'`, [taskId])).rows[0].n);
    expect(inFlight).toBeGreaterThan(0);

    const second = await harness.startBackend(env);
    let task: TaskData = { state: '' } as TaskData;
    const deadline = Date.now() + 120_000;
    while (task.state !== 'SUCCESS') {
      if (Date.now() > deadline) throw new Error(`not finished after restart: ${JSON.stringify(task)}`);
      await new Promise((r) => setTimeout(r, 300));
      task = ((await second.call({ method: 'GET', url: `/batch/_1000001/task/info/${taskId}` })).json() as { data: TaskData }).data;
    }
    expect(task).toMatchObject({ total: URLS, success: URLS });
    expect(task.download_urls).toHaveLength(2);

    const lines = [];
    for (const link of task.download_urls!) {
      const res = await second.call({ method: 'GET', url: linkPath(link) });
      expect(res.status).toBe(200);
      lines.push(...jsonLines(res.text));
    }
    expect(lines.map((l) => l.line)).toEqual(urls.map((_, i) => i));
    expect(lines.map((l) => l.url)).toEqual(urls);
    expect(lines.every((l) => l.result && !l.error)).toBe(true);

    // Every URL fetched; only the lines in flight at the kill were fetched twice.
    const fetched = [...images.hits.entries()].filter(([p]) => p.startsWith('/img/'));
    expect(fetched).toHaveLength(URLS);
    expect(fetched.reduce((sum, [, n]) => sum + n, 0)).toBeLessThanOrEqual(URLS + inFlight);
    expect(Number((await harness.pool.query('SELECT count(*) AS n FROM batch_items WHERE task_id = $1', [taskId])).rows[0].n)).toBe(0);
    await second.kill('SIGTERM');
  }, 300_000);

  it('hands the rest of a task over when a backend stops gracefully mid-task', async () => {
    const config = loadConfig({ DATABASE_URL: harness.databaseUrl, INTERNAL_SECRET: TEST_SECRET, IRIS_DATA_DIR: harness.dataDir, IRIS_ALLOW_PRIVATE_URLS: '1', IRIS_INFERENCE_THREADS: '1', LOG_LEVEL: 'warn' });
    const first = await buildApp(config, { logger: false });
    await first.ready();
    const urls = Array.from({ length: 80 }, (_, i) => images.url(1000 + i, 'png'));
    const taskId = newResourceId();
    const upload = multipart({ service_id: '_0000073', urls: { filename: 'urls.txt', content: urls.join('\n') } });
    expect((await callSigned(first, { method: 'POST', url: '/batch/_1000001/task/prepare', resourceId: taskId, payload: upload.payload, headers: upload.headers })).statusCode).toBe(200);
    expect((await callSigned(first, { method: 'POST', url: '/batch/_1000001/task/apply', payload: { task_id: taskId } })).statusCode).toBe(200);
    const success = async () => Number((await harness.pool.query('SELECT success FROM batch_tasks WHERE id = $1', [taskId])).rows[0].success);
    const until = Date.now() + 180_000;
    while ((await success()) < 5) {
      if (Date.now() > until) throw new Error('the task did not progress');
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.close();
    expect(await success()).toBeLessThan(urls.length);
    // Nothing left claimed by the stopped process, and a turn is waiting in the queue for the next one.
    expect(Number((await harness.pool.query(`SELECT count(*) AS n FROM batch_items WHERE task_id = $1 AND state = 'running'`, [taskId])).rows[0].n)).toBe(0);
    const queued = await harness.pool.query(`SELECT count(*) AS n FROM pgboss.job WHERE name = 'batch.run-task' AND state = 'created' AND data->>'taskId' = $1`, [taskId]);
    expect(Number(queued.rows[0].n)).toBe(1);

    const second = await buildApp(config, { logger: false });
    await second.ready();
    try {
      let task: TaskData = { state: '' } as TaskData;
      const deadline = Date.now() + 120_000;
      while (task.state !== 'SUCCESS') {
        if (Date.now() > deadline) throw new Error(`not finished: ${JSON.stringify(task)}`);
        await new Promise((r) => setTimeout(r, 300));
        task = (await callSigned(second, { method: 'GET', url: `/batch/_1000001/task/info/${taskId}` })).json().data as TaskData;
      }
      const lines = jsonLines((await callSigned(second, { method: 'GET', url: linkPath(task.download_urls![0]!) })).payload);
      expect(lines.map((l) => l.url)).toEqual(urls);
    } finally {
      await second.close();
    }
  }, 300_000);
});
