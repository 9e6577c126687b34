/**
 * Visual search as two domains: services (create/list/get/rename/delete, the indexing job, the poller and
 * the in-memory indexes as `app.searchIndexes`) and queries (`/search`, `/product_search`).
 */
import fp from 'fastify-plugin';
import { defineJob } from '../../jobs/job-registry.js';
import { registerSetUsageCheck } from '../data-sets/index.js';
import type { Domain } from '../domain.js';
import { searchRoutes } from '../search/search.routes.js';
import { EmbedderRegistry } from './embedder-registry.js';
import { IndexPoller } from './index-poller.js';
import { INDEX_JOB, SearchIndexer, type IndexJobData } from './search-indexer.js';
import { setHasService } from './search-service.repo.js';
import { searchServiceRoutes } from './search-service.routes.js';
import { ServiceGoneError, ServiceIndexes } from './service-indexes.js';
import { vectorBackend } from './vector-backend.js';
import { RecentPixels } from '../../images/recent-pixels.js';

declare module 'fastify' {
  interface FastifyInstance {
    searchIndexes: ServiceIndexes;
    searchIndexer: SearchIndexer;
    searchEmbedders: EmbedderRegistry;
    /** Pixels of first passes kept for their second pass (in `pixelArena`, as `recentPixels`). */
    secondPassPixels: RecentPixels;
  }
}

/**
 * Pixels kept for a second pass that has not come within this long are dropped: while a set downloads, second
 * passes run one batch every few seconds, oldest first, so older ones would rarely be taken.
 */
const SECOND_PASS_PIXELS_MAX_AGE_MS = 120_000;

const services = fp(
  async (app) => {
    const config = app.config.search;
    const log = app.log.child({ domain: 'search' });
    const vectors = vectorBackend(app.config.vectors, { databaseUrl: app.config.databaseUrl, pool: app.db.pool }, log);
    const embedders = new EmbedderRegistry(app.db.pool);
    const indexes = new ServiceIndexes({
      pool: app.db.pool,
      cacheDir: app.config.cacheDir,
      instanceId: app.config.instanceId,
      log,
      saveEveryMs: config.saveMs,
      memoryBudgetBytes: config.indexMemoryBytes,
      vectors: vectors.backend,
    });
    const secondPassPixels = new RecentPixels(config.secondPassPixelsBytes, SECOND_PASS_PIXELS_MAX_AGE_MS, Date.now, SECOND_PASS_PIXELS_MAX_AGE_MS, app.pixelArena);
    const indexer = new SearchIndexer({ pool: app.db.pool, blobs: app.blobs, recentPixels: app.recentPixels, secondPassPixels, inference: app.inference, log, embedders, observeSource: (pass, source) => app.metrics.indexEmbedSources.inc({ pass, source }) }, { batchSize: config.indexBatch });
    const poller = new IndexPoller({ pool: app.db.pool, queue: app.queue, indexes, log, intervalMs: config.pollMs, embedders });
    app.decorate('searchEmbedders', embedders);
    app.decorate('searchIndexes', indexes);
    app.decorate('searchIndexer', indexer);
    app.decorate('secondPassPixels', secondPassPixels);

    const unregister = registerSetUsageCheck((setId) => setHasService(app.db.pool, setId));
    app.addHook('onReady', async () => {
      // The configured embedder is hashed and recorded now: a changed model file or manifest is detected at boot.
      const embedder = await embedders.configured();
      if (embedder.manifestPath) log.info({ embedder: embedder.id, manifest: embedder.manifestPath }, 'image embedder from manifest');
      poller.start();
    });
    app.addHook('preClose', async () => {
      indexer.stop();
      await poller.stop();
    });
    app.addHook('onClose', async () => {
      unregister();
      await indexes.close();
      await vectors.close();
    });
    await app.register(searchServiceRoutes);
  },
  { name: 'search-services', dependencies: ['database', 'queue', 'inference', 'blob-store'] },
);

export const searchServicesDomain: Domain = {
  name: 'search-services',
  routes: services,
  jobs: (app) => [
    defineJob<IndexJobData>({
      name: INDEX_JOB,
      concurrency: app.config.search.indexJobs,
      // 'short': at most one queued job per service (singletonKey); runs are serialised by an advisory lock.
      queue: { policy: 'short', retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 15 * 60 },
      handler: async (data) => {
        await app.searchIndexer.run(data.serviceId);
        await app.searchIndexes.keepFileCurrent(data.serviceId).catch((err: unknown) => {
          if (!(err instanceof ServiceGoneError)) throw err;
        });
      },
    }),
  ],
};

export const searchQueriesDomain: Domain = { name: 'search', routes: searchRoutes };

export const SEARCH_DOMAINS: Domain[] = [searchServicesDomain, searchQueriesDomain];
