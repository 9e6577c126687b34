import fp from 'fastify-plugin';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { JobDefinition, JobRegistry } from '../jobs/job-registry.js';

export interface JobQueue {
  send(name: string, data: object, options?: PgBoss.SendOptions): Promise<string | null>;
  boss: PgBoss;
}

declare module 'fastify' {
  interface FastifyInstance {
    queue: JobQueue;
  }
}

/**
 * pg-boss on the region's PostgreSQL: durable jobs that survive restarts and are safe for many backend
 * processes. Handlers come from the job registry; a job name without a handler is refused at send time.
 * Handlers are attached once the server is ready (so routes and plugins they use exist).
 */
export const queuePlugin = fp(
  async (app, opts: { databaseUrl: string; registry: () => JobRegistry; workers?: boolean }) => {
    const boss = new PgBoss({ connectionString: opts.databaseUrl, schema: 'pgboss', max: 10 });
    boss.on('error', (err) => app.log.error({ err }, 'job queue error'));
    await withQueueSetupLock(app.db.pool, () => boss.start());
    let registry: JobRegistry | null = null;

    const queue: JobQueue = {
      boss,
      async send(name, data, options) {
        if (registry && !registry.has(name)) throw new Error(`no handler for job ${name}`);
        return options ? boss.send(name, data, options) : boss.send(name, data);
      },
    };
    app.decorate('queue', queue);

    app.addHook('onReady', async () => {
      registry = opts.registry();
      const definitions = [...registry.values()];
      await withQueueSetupLock(app.db.pool, async () => {
        for (const def of definitions) await boss.createQueue(def.name, { name: def.name, ...def.queue });
      });
      if (opts.workers === false) return;
      for (const def of definitions) {
        for (let i = 0; i < def.concurrency; i++) await boss.work(def.name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, runner(app, def));
      }
    });

    app.addHook('onClose', async () => {
      await boss.stop({ graceful: true, wait: true, timeout: 20_000 });
    });
  },
  { name: 'queue', dependencies: ['database'] },
);

/** Identifies the lock that serialises queue set-up across the region's processes (arbitrary, constant). */
const QUEUE_SETUP_LOCK = 7_301_115;

/**
 * pg-boss creates a queue's partition (a foreign key to its queue table, then ATTACH PARTITION) in one
 * transaction; processes creating the same new queues at once deadlock on those locks. Set-up is serialised
 * by a session advisory lock, held on its own connection while `work` runs.
 */
async function withQueueSetupLock(pool: pg.Pool, work: () => Promise<unknown>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK]);
    try {
      await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [QUEUE_SETUP_LOCK]);
    }
  } finally {
    client.release();
  }
}

function runner(app: { log: { error: (o: object, m: string) => void } }, def: JobDefinition) {
  return async (jobs: PgBoss.Job<object>[]) => {
    for (const job of jobs) {
      try {
        await def.handler(job.data, job);
      } catch (err) {
        app.log.error({ err, job: def.name, id: job.id }, 'job failed');
        throw err;
      }
    }
  };
}
