import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BackendConfig } from './config.js';
import { DOMAINS } from './domains/index.js';
import { BulkWriteTurns } from './domains/data-sets/bulk-write-turns.js';
import { registerContract } from './http/contract.hook.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerServerTiming } from './http/server-timing.js';
import { registerAccountCalls } from './http/account-calls.hook.js';
import { registerAccountUploadLimit } from './http/account-uploads.hook.js';
import { registerInternalAuth } from './http/internal-auth.hook.js';
import { FetchSlots } from './http/fetch-slots.js';
import { registerBodyHandling } from './http/request-body.js';
import { requestLogOptions } from './http/request-log.js';
import { createJobRegistry } from './jobs/job-registry.js';
import { blobStorePlugin } from './plugins/blob-store.plugin.js';
import { databasePlugin } from './plugins/database.plugin.js';
import { decoderPlugin } from './plugins/decoder.plugin.js';
import { inferencePlugin } from './plugins/inference.plugin.js';
import { instancePlugin } from './plugins/instance.plugin.js';
import { metricsPlugin } from './plugins/metrics.plugin.js';
import { modelCachePlugin } from './plugins/model-cache.plugin.js';
import { loopWatchdogPlugin } from './plugins/loop-watchdog.plugin.js';
import { queuePlugin } from './plugins/queue.plugin.js';

/** A bulk file waiting longer than this for its account's turn is refused with 503 (retry later). */
const BULK_TURN_MAX_WAIT_MS = 30_000;

declare module 'fastify' {
  interface FastifyInstance {
    config: BackendConfig;
  }
}

export interface BuildOptions {
  /** Run background job handlers in this process (default true). */
  workers?: boolean;
  logger?: boolean;
}

/** Builds the region backend: infrastructure plugins, the edge-signature gate, then every domain. */
export async function buildApp(config: BackendConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  // A body trickled in (or never finished) holds an upload slot, a temp file and a connection: the whole request
  // must arrive within IRIS_REQUEST_TIMEOUT_SECONDS, checked this often.
  const serverOptions = { connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.round(config.requestTimeoutMs / 4))) };
  const app = Fastify({
    ...(config.tls ? { https: { ...serverOptions, cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } } : { http: serverOptions }),
    requestTimeout: config.requestTimeoutMs,
    logger: options.logger === false ? false : { level: config.logLevel },
    ...requestLogOptions,
    bodyLimit: 64 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Start-up (plugins, onReady hooks) on a loaded host can take longer than Fastify's 10 s; a process that gave
    // up would exit and restart into the same load. Traffic waits for /readyz either way.
    pluginTimeout: 180_000,
  });
  // Node checks a request's whole time only when its headers' limit (60 s by default) is not the longer one.
  app.server.headersTimeout = Math.min(app.server.headersTimeout, config.requestTimeoutMs);
  app.decorate('config', config);
  registerBodyHandling(app);
  registerErrorHandling(app, { strictContract: config.strictContract });
  registerServerTiming(app);
  registerContract(app);
  registerInternalAuth(app, config.internalSecret);
  await app.register(loopWatchdogPlugin, { thresholdMs: config.watchdogMs });
  registerAccountUploadLimit(app, config.accountUploads, config.processUploads);
  app.decorate('fetchSlots', new FetchSlots(config.fetchSlots.perAccount, config.fetchSlots.perProcess));
  const accountCalls = registerAccountCalls(app);
  app.decorate('accountCalls', accountCalls);
  app.decorate(
    'bulkWrites',
    new BulkWriteTurns({
      yields: (account) => accountCalls.concurrency(account) >= 2 && accountCalls.othersActive(account),
      rowsPerSecond: config.yieldingBulkRowsPerSecond,
      maxWaitMs: BULK_TURN_MAX_WAIT_MS,
    }),
  );

  await app.register(databasePlugin, { databaseUrl: config.databaseUrl, connectTimeoutMs: config.dbConnectTimeoutMs });
  await app.register(instancePlugin, { instanceId: config.instanceId, tmpDir: config.tmpDir, uploadDir: config.uploadDir });
  await app.register(inferencePlugin, { threads: config.inferenceThreads, limits: config.poolLimits, warmModels: config.warmModels });
  await app.register(decoderPlugin, { threads: config.images.decodeThreads, maxPixels: config.images.maxPixels, timeoutMs: config.images.decodeTimeoutMs, firstTierBoost: config.poolLimits.firstTierBoost });
  // The pools put the tasks of an account with several calls at once (now or within the last second) on their
  // low-priority threads.
  app.inference.callsInFlight = accountCalls.concurrency;
  app.decoder.callsInFlight = accountCalls.concurrency;
  await app.register(modelCachePlugin, { databaseUrl: config.databaseUrl });
  await app.register(blobStorePlugin);
  await app.register(queuePlugin, {
    databaseUrl: config.databaseUrl,
    workers: options.workers,
    registry: () => createJobRegistry(DOMAINS.flatMap((d) => d.jobs?.(app) ?? [])),
  });

  await app.register(metricsPlugin, config.metrics);
  app.get('/healthz', async () => ({ ok: true, region: config.region }));
  for (const domain of DOMAINS) await app.register(domain.routes);
  return app;
}
