/**
 * The download machinery as a domain: the `app.downloads` service (shared by the image, product and
 * training set domains, which are registered after it), its job type, and boot-time recovery.
 */
import fp from 'fastify-plugin';
import { purgeRecordTombstones } from '../data-sets/record-feed.js';
import { defineJob } from '../../jobs/job-registry.js';
import { downloadReason } from '../../observability/metrics.js';
import type { Domain } from '../domain.js';
import { DOWNLOAD_JOB, DownloadService, type DownloadJobData } from './download.service.js';
import { imageDownloader } from './image-download.js';
import { currentUsageScope } from '../../util/usage-scope.js';
import { setHasService } from '../search-services/search-service.repo.js';

declare module 'fastify' {
  interface FastifyInstance {
    downloads: DownloadService;
  }
}

const PURGE_JOB = 'data-sets.purge-tombstones';
/** Deleted records stay visible to change readers (search indexing) this long. */
const TOMBSTONE_DAYS = 7;

const routes = fp(
  async (app) => {
    const imageConfig = app.config.images;
    const service = new DownloadService({
      pool: app.db.pool,
      queue: app.queue,
      log: app.log.child({ domain: 'downloads' }),
      download: imageDownloader(app.blobWriter, imageConfig, app.decoder, app.recentPixels),
      concurrency: app.config.downloadConcurrency,
      config: app.config.downloads,
      observe: (outcome, err) => app.metrics.downloads.inc({ outcome, reason: outcome === 'ok' ? 'none' : downloadReason(err) }),
      othersActive: app.accountCalls.othersActive,
      recentPixels: app.recentPixels,
      setIsIndexed: (setId) => setHasService(app.db.pool, setId),
      // Under the call's service when a call stores it (an add), else `downloads` (a set's queued records).
      stored: (accountId, bytes) => {
        const scope = currentUsageScope();
        app.usage.add({ accountId, service: scope?.accountId === accountId ? scope.service : 'downloads' }, { picturesStored: 1, bytesStored: bytes });
      },
    });
    app.decorate('downloads', service);
    app.addHook('onReady', async () => {
      const sets = await service.recover();
      if (sets) app.log.info({ sets }, 'resuming unfinished downloads');
      await app.queue.boss.schedule(PURGE_JOB, '17 3 * * *', {});
    });
    app.addHook('onClose', async () => service.close());
  },
  { name: 'downloads', dependencies: ['database', 'queue', 'blob-store', 'blob-gc', 'metrics', 'usage'] },
);

export const downloadsDomain: Domain = {
  name: 'downloads',
  routes,
  jobs: (app) => [
    defineJob<DownloadJobData>({
      name: DOWNLOAD_JOB,
      concurrency: 2,
      queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 15 * 60 },
      handler: async (data) => {
        await app.downloads.processSet(data.setId);
      },
    }),
    defineJob({
      name: PURGE_JOB,
      concurrency: 1,
      handler: async () => {
        const purged = await purgeRecordTombstones(app.db.pool, new Date(Date.now() - TOMBSTONE_DAYS * 86_400_000));
        if (purged) app.log.info({ purged }, 'purged deleted data-set records');
      },
    }),
  ],
};
