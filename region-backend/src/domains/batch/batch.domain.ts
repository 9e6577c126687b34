/**
 * Batch tasks as a domain: the routes, the worker (`app.batchWorker`) with its job type, and boot-time
 * recovery of tasks whose process died.
 */
import path from 'node:path';
import fp from 'fastify-plugin';
import { defineJob } from '../../jobs/job-registry.js';
import { PeriodicTask } from '../../jobs/periodic-task.js';
import type { Domain } from '../domain.js';
import { backgroundPool, defaultBatchThreads } from './background-pool.js';
import { BatchServices } from './batch-services.js';
import { BatchTaskService } from './batch-task.service.js';
import { BATCH_JOB, BatchWorker, type BatchJobData } from './batch-worker.service.js';
import { sweepBatchTasks } from './batch-sweep.js';
import { batchRoutes } from './batch.routes.js';
import { customClassifierSource } from './custom-classifiers.js';

/** Expiry of prepared tasks and retention of finished ones: hourly, one run at a time for the region. */
const SWEEP_JOB = 'batch.sweep';

declare module 'fastify' {
  interface FastifyInstance {
    batchWorker: BatchWorker;
  }
}

const routes = fp(
  async (app) => {
    const config = app.config.batch;
    const filesDir = batchFilesDir(app.config);
    const inference = backgroundPool(app.inference, config.inferenceThreads ?? defaultBatchThreads(app.inference.size));
    const custom = customClassifierSource({ pool: app.db.pool, inference, decoder: app.decoder, defaultTopk: app.config.training.defaultTopk });
    const services = new BatchServices(app, config.services, custom);
    const worker = new BatchWorker({
      pool: app.db.pool,
      queue: app.queue,
      log: app.log.child({ domain: 'batch' }),
      services,
      inference,
      othersActive: app.accountCalls.othersActive,
      fetch: app.config.images.fetch,
      config,
      taskDir: (taskId) => path.join(filesDir, taskId),
      usage: app.usage,
    });
    const tasks = new BatchTaskService({
      pool: app.db.pool,
      services,
      config,
      filesDir,
      secret: app.config.linkSecret,
      publicEdgeUrl: app.config.publicEdgeUrl,
      enqueue: (taskId) => worker.enqueue(taskId),
    });
    app.decorate('batchWorker', worker);
    await batchRoutes(app, { tasks, services });
    // At start and then every lease period, every unfinished task gets a queued turn ('short' policy: at most one
    // queued job per task), so the task of a process that died goes on in another within about two lease periods
    // (its claimed lines are free again once their lease runs out), not only when its job expires.
    let rounds = 0;
    const recovery = new PeriodicTask({
      name: 'batch task recovery',
      intervalMs: config.leaseSeconds * 1000,
      log: app.log,
      run: async () => {
        const resumed = await worker.recover();
        if (resumed && rounds++ === 0) app.log.info({ tasks: resumed }, 'resuming queued batch tasks');
      },
    });
    app.addHook('onReady', async () => {
      recovery.start();
      // pg-boss runs a schedule once per tick for all processes, and the job type runs one job at a time.
      await app.queue.boss.schedule(SWEEP_JOB, '23 * * * *', {});
      await app.queue.send(SWEEP_JOB, {}, { singletonKey: 'boot', singletonSeconds: 600 });
    });
    app.addHook('preClose', async () => {
      await recovery.stop();
      worker.close();
    });
  },
  { name: 'batch', dependencies: ['database', 'queue', 'inference', 'usage'] },
);

/** One folder per task (its input and result files) in the region's shared store. */
export function batchFilesDir(config: { sharedDir: string }): string {
  return path.join(config.sharedDir, 'batch');
}

export const batchDomain: Domain = {
  name: 'batch',
  routes,
  jobs: (app) => [
    defineJob<BatchJobData>({
      name: BATCH_JOB,
      // One task per process at a time; its lines run IRIS_BATCH_CONCURRENCY at once.
      concurrency: 1,
      // A turn lasts IRIS_BATCH_JOB_SECONDS; the job of a process that died is retried once it expires.
      queue: { policy: 'short', retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: app.config.batch.jobBudgetMs / 1000 + 600 },
      handler: async (data) => {
        await app.batchWorker.runTurn(data.taskId);
      },
    }),
    defineJob({
      name: SWEEP_JOB,
      concurrency: 1,
      queue: { expireInSeconds: 3600 },
      handler: async () => {
        const { preparedMs, retentionMs } = app.config.batch;
        const swept = await sweepBatchTasks(app.db.pool, { preparedMs, retentionMs, filesDir: batchFilesDir(app.config) });
        if (swept.expired || swept.deleted || swept.orphans) app.log.info(swept, 'batch sweep: prepared tasks expired, finished tasks deleted, orphan folders removed');
      },
    }),
  ],
};
