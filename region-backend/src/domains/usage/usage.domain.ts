/**
 * Usage per account, day and service (docs/usage-and-export.md): the `app.usage` meter every domain adds to
 * (registered before them), the hooks that count calls and give each call its usage scope, and
 * `GET /iris/usage`, the account's own figures beside its quotas.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { operationById, QUOTA_FIELDS } from '@iris/shared';
import { serve } from '../../http/serve.js';
import { withUsageScope, type UsageScope } from '../../util/usage-scope.js';
import type { Domain } from '../domain.js';
import { UsageMeter } from './usage-meter.js';
import { parseUsageRange } from './usage.params.js';
import { storedNow, usageDays, type StoredUsageDay } from './usage.repo.js';

declare module 'fastify' {
  interface FastifyInstance {
    usage: UsageMeter;
  }
}

/**
 * The service a call is counted under: the service id it names once the call succeeded (an unknown id
 * answered with an error names nothing: it must not add a row per made-up id), else its API family, the
 * first word of its route pattern (`image_sets`, `batch`, `search`; `analysis` for `/{word}/{service_id}`), or
 * the set kind of a successful `/iris/{kind}/...` call. Every label is a fixed word or an id the account owns.
 */
export function callService(request: FastifyRequest, succeeded: boolean): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (succeeded && typeof params.service_id === 'string' && params.service_id) return params.service_id;
  const route = request.routeOptions.url ?? '';
  const family = route.split('/')[1] ?? '';
  if (family === 'iris') return typeof params.kind === 'string' && succeeded ? params.kind : 'iris';
  // `/{word}/{service_id}` matches any two words: the caller's word would name a row of its own.
  if (family.startsWith(':')) return 'analysis';
  return family || 'unknown';
}

/** Calls of an account (the edge signed them), except the edge's own internal calls. */
const counted = (request: FastifyRequest): boolean => Boolean(request.ctx) && !(request.routeOptions.url ?? '').startsWith('/internal/');

const DAY_SUM_KEYS = ['calls', 'pictures_analysed', 'pictures_stored', 'bytes_stored', 'batch_lines'] as const;

function answerRow(row: StoredUsageDay) {
  const { inference_ms, ...rest } = row;
  return { ...rest, inference_seconds: inference_ms / 1000 };
}

const routes = fp(
  async (app) => {
    const meter = new UsageMeter(app.db.pool, (measure, amount) => app.metrics.usage.inc({ measure }, amount));
    app.decorate('usage', meter);
    meter.start(app.config.usage.flushMs, (err) => app.log.warn({ err }, 'usage counts not written yet (kept for the next flush)'));
    app.addHook('onClose', async () => meter.close().catch((err: unknown) => app.log.error({ err }, 'usage counts of the last interval lost')));

    // Inference and decoding thread time, attributed to the scope each task was submitted in.
    for (const pool of [app.inference, app.decoder]) {
      const previous = pool.observer;
      pool.observer = {
        started: (task, priority, waitedMs) => previous?.started(task, priority, waitedMs),
        finished: (task, ranMs, ok, usage) => {
          previous?.finished(task, ranMs, ok, usage);
          if (usage) meter.add(usage, { inferenceMs: ranMs });
        },
      };
    }

    // The handler (and everything it starts) runs in the call's usage scope.
    app.addHook('preHandler', function usageScope(request, _reply, done) {
      if (!counted(request)) return done();
      const scope: UsageScope = { accountId: request.ctx.accountId, service: callService(request, true) };
      withUsageScope(scope, done);
    });
    app.addHook('onResponse', async function countCall(request, reply) {
      if (counted(request)) meter.add({ accountId: request.ctx.accountId, service: callService(request, reply.statusCode < 400) }, { calls: 1 });
    });

    app.get('/iris/usage', serve(operationById('getUsage'), async ({ query, ctx }) => {
      const range = parseUsageRange(query);
      const [days, stored] = await Promise.all([usageDays(app.db.pool, ctx.accountId, range.from, range.to), storedNow(app.db.pool, ctx.accountId)]);
      const results = days.map(answerRow);
      const totals = {
        ...Object.fromEntries(DAY_SUM_KEYS.map((key) => [key, results.reduce((sum, r) => sum + r[key], 0)])),
        inference_seconds: results.reduce((sum, r) => sum + r.inference_seconds, 0),
      } as Record<(typeof DAY_SUM_KEYS)[number] | 'inference_seconds', number>;
      return {
        request_id: ctx.requestId,
        region: app.config.region,
        ...range,
        results,
        totals,
        stored,
        quotas: Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, ctx.quotas[f.key]])) as Record<(typeof QUOTA_FIELDS)[number]['api'], number>,
      };
    }));
  },
  { name: 'usage', dependencies: ['database', 'metrics', 'decoder'] },
);

export const usageDomain: Domain = { name: 'usage', routes };
