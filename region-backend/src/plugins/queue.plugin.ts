import fp from 'fastify-plugin';
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
    await boss.start();
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
      for (const def of registry.values()) {
        await boss.createQueue(def.name, { name: def.name, ...def.queue });
        if (opts.workers === false) continue;
        for (let i = 0; i < def.concurrency; i++) await boss.work(def.name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, runner(app, def));
      }
    });

    app.addHook('onClose', async () => {
      await boss.stop({ graceful: true, wait: true, timeout: 20_000 });
    });
  },
  { name: 'queue', dependencies: ['database'] },
);

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
