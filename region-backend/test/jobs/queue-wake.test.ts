/**
 * Job pick-up without waiting for the poll: with an interval far longer than the test may take, a job this
 * process sends is run by its idle worker (a delayed one once it comes due), and a worker that has just
 * finished a job runs the next one queued meanwhile (sent straight to pg-boss, so no wake-up of the plugin's
 * own is involved).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRegistry, defineJob } from '../../src/jobs/job-registry.js';
import { databasePlugin } from '../../src/plugins/database.plugin.js';
import { queuePlugin } from '../../src/plugins/queue.plugin.js';
import { createTestDatabase } from '../support/test-database.js';
import { waitUntil } from '../support/wait-for.js';

/** Ten minutes: no job of this test is picked up by a poll while it runs. */
const POLL_SECONDS = 600;
const QUEUE = 'wake-test';

describe('job pick-up between polls', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: FastifyInstance;
  const ran: number[] = [];
  /** Jobs that have started; the job numbered `held` waits for `release`. */
  const started: number[] = [];
  let release: () => void = () => {};
  let held = -1;

  beforeAll(async () => {
    database = await createTestDatabase();
    const registry = createJobRegistry([
      defineJob<{ n: number }>({
        name: QUEUE,
        concurrency: 1,
        handler: async ({ n }) => {
          const gate = n === held ? new Promise<void>((resolve) => (release = resolve)) : undefined;
          started.push(n);
          await gate;
          ran.push(n);
        },
      }),
    ]);
    app = Fastify();
    app.register(databasePlugin, { databaseUrl: database.url, poolSize: 3 });
    app.register(queuePlugin, { databaseUrl: database.url, registry: () => registry, pollSeconds: POLL_SECONDS });
    await app.ready();
  });
  afterAll(async () => {
    release();
    await app?.close();
    await database?.drop();
  });

  it('runs a job this process sends at once, though its worker is waiting for the next poll', async () => {
    await app.queue.send(QUEUE, { n: 1 });
    await waitUntil(async () => [...ran], (r) => r.includes(1), 60_000);
    await app.queue.send(QUEUE, { n: 2 });
    await waitUntil(async () => [...ran], (r) => r.includes(2), 60_000);
    expect(ran).toEqual([1, 2]);
  });

  it('runs a delayed job this process sent once it comes due', async () => {
    await app.queue.send(QUEUE, { n: 6 }, { startAfter: 1 });
    await waitUntil(async () => [...ran], (r) => r.includes(6), 60_000);
  });

  it('runs the next job as soon as the one before ends, without a wake-up', async () => {
    held = 3;
    await app.queue.send(QUEUE, { n: 3 });
    // Job 3 is running (its one worker is busy) when jobs 4 and 5 are queued straight in pg-boss.
    await waitUntil(async () => [...started], (s) => s.includes(3), 60_000);
    await app.queue.boss.send(QUEUE, { n: 4 });
    await app.queue.boss.send(QUEUE, { n: 5 });
    release();
    await waitUntil(async () => [...ran], (r) => r.includes(5), 60_000);
    expect(ran).toEqual([1, 2, 6, 3, 4, 5]);
  });
});
