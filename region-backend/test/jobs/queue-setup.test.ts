/**
 * Several backend processes starting at once on a database that has no job queues yet (a new region whose
 * processes boot together) all come up: pg-boss's queue creation is serialised across them.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRegistry, defineJob } from '../../src/jobs/job-registry.js';
import { databasePlugin } from '../../src/plugins/database.plugin.js';
import { queuePlugin } from '../../src/plugins/queue.plugin.js';
import { createTestDatabase } from '../support/test-database.js';

const PROCESSES = 4;
const QUEUES = Array.from({ length: 12 }, (_, i) => `setup-test-${i}`);

describe('job queue set-up by processes starting together', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('DROP SCHEMA IF EXISTS pgboss CASCADE');
    await client.end();
  });
  afterAll(async () => database?.drop());

  it('brings every process up with every queue made once', async () => {
    const registry = createJobRegistry(QUEUES.map((name) => defineJob({ name, concurrency: 1, handler: async () => {} })));
    const apps: FastifyInstance[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const app = Fastify();
      app.register(databasePlugin, { databaseUrl: database.url, poolSize: 3 });
      app.register(queuePlugin, { databaseUrl: database.url, registry: () => registry, workers: false });
      apps.push(app);
    }
    try {
      const started = await Promise.allSettled(apps.map((app) => app.ready()));
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const made = await client.query<{ name: string }>('SELECT name FROM pgboss.queue WHERE name = ANY($1) ORDER BY name', [QUEUES]);
      await client.end();
      expect(made.rows.map((r) => r.name)).toEqual([...QUEUES].sort());
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  }, 120_000);
});
