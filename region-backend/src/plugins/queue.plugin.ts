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
 * How often an idle worker looks for jobs it was not told about: jobs another process of the region sent and
 * retries coming due. A job this process sends wakes its workers of that queue at once (a delayed one when it
 * comes due), and a worker that has just finished jobs looks for the next at once, so this bounds only those
 * pick-ups, and sets what an idle process asks PostgreSQL (one query per worker per interval).
 */
export const JOB_POLL_SECONDS = 1;

/**
 * pg-boss on the region's PostgreSQL: durable jobs that survive restarts and are safe for many backend
 * processes. Handlers come from the job registry; a job name without a handler is refused at send time.
 * Handlers are attached once the server is ready (so routes and plugins they use exist).
 */
export const queuePlugin = fp(
  async (app, opts: { databaseUrl: string; registry: () => JobRegistry; workers?: boolean; pollSeconds?: number }) => {
    const boss = new PgBoss({ connectionString: opts.databaseUrl, schema: 'pgboss', max: 10 });
    boss.on('error', (err) => app.log.error({ err }, 'job queue error'));
    await withQueueSetupLock(app.db.pool, () => boss.start());
    let registry: JobRegistry | null = null;
    /** This process's workers of each queue. */
    const workers = new Map<string, string[]>();
    const wake = (name: string) => workers.get(name)?.forEach((id) => boss.notifyWorker(id));

    const queue: JobQueue = {
      boss,
      async send(name, data, options) {
        if (registry && !registry.has(name)) throw new Error(`no handler for job ${name}`);
        const id = options ? await boss.send(name, data, options) : await boss.send(name, data);
        // A delayed job wakes them when it comes due (pg-boss takes a number as seconds from now).
        const due = options?.startAfter;
        const inMs = due === undefined ? 0 : typeof due === 'number' ? due * 1000 : new Date(due).getTime() - Date.now();
        if (inMs > 0) setTimeout(() => wake(name), inMs).unref();
        else wake(name);
        return id;
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
        const ids: string[] = [];
        workers.set(def.name, ids);
        for (let i = 0; i < def.concurrency; i++) {
          // Notified while it runs its job, a worker fetches again as soon as it ends instead of waiting out the interval.
          let id = '';
          id = await boss.work(def.name, { batchSize: 1, pollingIntervalSeconds: opts.pollSeconds ?? JOB_POLL_SECONDS }, runner(app, def, () => boss.notifyWorker(id)));
          ids.push(id);
        }
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

function runner(app: { log: { error: (o: object, m: string) => void } }, def: JobDefinition, fetchNextAtOnce: () => void) {
  return async (jobs: PgBoss.Job<object>[]) => {
    fetchNextAtOnce();
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
