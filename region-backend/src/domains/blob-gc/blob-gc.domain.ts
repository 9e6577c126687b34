/**
 * Blob garbage collection as a domain: `app.blobWriter` (how downloads store images), a collection run in
 * every process every IRIS_BLOB_GC_INTERVAL_SECONDS (blobs that lost a reference: deleting a record, a set,
 * a product set or a training set frees its images within about one interval), and a full sweep job (at
 * boot and daily) for files nothing registered.
 */
import fp from 'fastify-plugin';
import { defineJob } from '../../jobs/job-registry.js';
import { PeriodicTask } from '../../jobs/periodic-task.js';
import type { Domain } from '../domain.js';
import { BlobCollector } from './blob-collector.js';
import { BlobWriter } from './blob-writer.js';

declare module 'fastify' {
  interface FastifyInstance {
    blobWriter: BlobWriter;
    blobCollector: BlobCollector;
  }
}

const SWEEP_JOB = 'blobs.sweep';

const routes = fp(
  async (app) => {
    const config = app.config.blobGc;
    const log = app.log.child({ domain: 'blob-gc' });
    app.decorate('blobWriter', new BlobWriter(app.db.pool, app.blobs, config.graceSeconds));
    const collector = new BlobCollector(app.db.pool, app.blobs, { graceSeconds: config.graceSeconds, batch: config.batch, log });
    app.decorate('blobCollector', collector);
    const task = new PeriodicTask({
      name: 'blob collection',
      intervalMs: config.intervalSeconds * 1000,
      log,
      run: async () => {
        const result = await collector.collectDue();
        if (result.deleted) log.info(result, 'deleted stored images nothing refers to');
      },
    });
    app.addHook('onReady', async () => {
      if (!config.enabled) return;
      task.start();
      await app.queue.boss.schedule(SWEEP_JOB, '41 4 * * *', {});
      await app.queue.send(SWEEP_JOB, {}, { singletonKey: 'boot', singletonSeconds: 3600 });
    });
    app.addHook('onClose', async () => task.stop());
  },
  { name: 'blob-gc', dependencies: ['database', 'queue', 'blob-store'] },
);

export const blobGcDomain: Domain = {
  name: 'blob-gc',
  routes,
  jobs: (app) => [
    defineJob({
      name: SWEEP_JOB,
      concurrency: 1,
      queue: { expireInSeconds: 3 * 3600 },
      handler: async () => {
        const queued = await app.blobCollector.queueUnreferenced();
        const files = await app.blobCollector.sweepFiles();
        if (queued || files) app.log.info({ queued, files }, 'blob sweep: unreferenced blobs queued, unregistered files removed');
      },
    }),
  ],
};
