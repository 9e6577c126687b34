/**
 * Metrics and readiness. `/metrics` (Prometheus text) is served on its own listener, loopback by default
 * (IRIS_METRICS_HOST / IRIS_METRICS_PORT), never on the API port; `/readyz` is on the API port, open like
 * `/healthz` (it reveals no data).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { readiness } from '../observability/readiness.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
    /** The metrics listener's address once listening (null when disabled). */
    metricsAddress: () => AddressInfo | null;
  }
}

interface QueueRow {
  name: string;
  queued: number;
  active: number;
  oldest: number | null;
}

/** Queue depth and age per job type, straight from pg-boss's table (every process sees the same figures). */
async function refreshQueues(app: FastifyInstance, metrics: Metrics): Promise<void> {
  const { rows } = await app.db.pool.query<QueueRow>(
    `SELECT q.name,
            count(j.id) FILTER (WHERE j.state IN ('created', 'retry'))::int AS queued,
            count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
            EXTRACT(EPOCH FROM now() - min(j.created_on) FILTER (WHERE j.state IN ('created', 'retry')))::float8 AS oldest
     FROM pgboss.queue q LEFT JOIN pgboss.job j ON j.name = q.name AND j.state IN ('created', 'retry', 'active')
     GROUP BY q.name`,
  );
  metrics.queueDepth.reset();
  metrics.queueActive.reset();
  metrics.queueAge.reset();
  for (const row of rows) {
    metrics.queueDepth.set({ queue: row.name }, row.queued);
    metrics.queueActive.set({ queue: row.name }, row.active);
    metrics.queueAge.set({ queue: row.name }, row.oldest ?? 0);
  }
}

/** Loaded indexes and their sizes; loads and evictions from the index cache's own totals (none is missed between scrapes). */
function indexTracker(app: FastifyInstance, metrics: Metrics) {
  const counted = { loads: 0, evictions: 0 };
  return () => {
    if (!app.hasDecorator('searchIndexes')) return;
    const indexes = app.searchIndexes;
    const loaded = indexes.loaded;
    metrics.indexesLoaded.set(loaded.length);
    metrics.indexVectors.reset();
    for (const id of loaded) metrics.indexVectors.set({ service: id }, indexes.describe(id)?.size ?? 0);
    metrics.indexLoads.inc(indexes.loads - counted.loads);
    metrics.indexEvictions.inc(indexes.evictions - counted.evictions);
    counted.loads = indexes.loads;
    counted.evictions = indexes.evictions;
  };
}

export const metricsPlugin = fp(
  async (app, opts: { host: string; port: number | null }) => {
    const metrics = createMetrics(app.config.region, app.config.build);
    app.decorate('metrics', metrics);

    app.addHook('onResponse', async function countRequest(request, reply) {
      const route = request.routeOptions.url ?? 'unmatched';
      const status = String(reply.statusCode);
      metrics.requests.inc({ route, method: request.method, status });
      metrics.requestSeconds.observe({ route, method: request.method }, reply.elapsedTime / 1000);
      if (reply.statusCode >= 400) metrics.errors.inc({ route, status });
    });

    app.inference.observer = {
      started: (task, priority, waitedMs) => metrics.inferenceWait.observe({ task, priority }, waitedMs / 1000),
      finished: (task, ranMs, ok) => metrics.inferenceRun.observe({ task, outcome: ok ? 'ok' : 'error' }, ranMs / 1000),
    };

    const trackIndexes = indexTracker(app, metrics);
    /** The text of a scrape (also what the `/metrics` listener answers). */
    const render = async (): Promise<string> => {
      const waiting = app.inference.waiting;
      metrics.inferenceWaiting.set({ priority: 'interactive' }, waiting.interactive);
      metrics.inferenceWaiting.set({ priority: 'background' }, waiting.background);
      for (const [tier, nice] of Object.entries(app.inference.tierNice())) if (nice !== null) metrics.inferenceThreadNice.set({ tier }, nice);
      trackIndexes();
      if (app.hasDecorator('pixelArena')) metrics.pixelArenaHeld.set(app.pixelArena.heldBytes);
      await refreshQueues(app, metrics).catch((err: unknown) => app.log.warn({ err }, 'queue metrics unavailable'));
      return metrics.registry.metrics();
    };

    app.get('/readyz', async (_request, reply) => {
      const report = await readiness(app);
      return reply.code(report.ready ? 200 : 503).send(report);
    });

    let server: Server | null = null;
    app.decorate('metricsAddress', () => (server?.address() as AddressInfo | null) ?? null);
    if (opts.port === null) return;
    app.addHook('onReady', async () => {
      server = createServer((req, res) => {
        if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
          res.writeHead(404).end();
          return;
        }
        render().then(
          (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
          (err: unknown) => {
            app.log.error({ err }, 'metrics failed');
            res.writeHead(500).end();
          },
        );
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(opts.port!, opts.host, () => resolve());
      });
      app.log.info({ address: server.address() }, 'metrics listening');
    });
    app.addHook('onClose', async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });
  },
  { name: 'metrics', dependencies: ['database', 'queue', 'inference'] },
);
