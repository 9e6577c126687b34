/**
 * Search services measure themselves (docs/search.md, "Self-evaluation"): `POST` / `GET
 * /customer_services/_0000172/{id}/evaluation`, and the background job that runs the queries.
 */
import fp from 'fastify-plugin';
import { ApiError, newResourceId, operationById } from '@iris/shared';
import { serve } from '../../http/serve.js';
import { defineJob } from '../../jobs/job-registry.js';
import { backgroundPool } from '../batch/background-pool.js';
import type { Domain } from '../domain.js';
import { SearchQueryService } from '../search/search.service.js';
import { findServiceState } from '../search-services/search-service.repo.js';
import { parseEvaluationParams } from './evaluation-params.js';
import { EVALUATION_JOB, EvaluationRunner, type EvaluationJobData } from './evaluation-runner.js';
import { evaluationObject } from './evaluation-view.js';
import { insertEvaluation, latestEvaluation } from './evaluation.repo.js';

declare module 'fastify' {
  interface FastifyInstance {
    searchEvaluations: EvaluationRunner;
  }
}

const PATH = '/customer_services/_0000172/:service_id/evaluation';

const routes = fp(
  async (app) => {
    const config = app.config.search;
    // The customers' search path on a background view of the inference pool: one thread at most, and
    // interactive calls are always taken first.
    const search = new SearchQueryService({
      pool: app.db.pool,
      inference: backgroundPool(app.inference, 1),
      indexes: app.searchIndexes,
      embedders: app.searchEmbedders,
      decoder: app.decoder,
      rerankCandidates: config.rerankCandidates,
      // Background work: a query's regions are never cut short for time.
      maxRegions: config.maxRegions,
      regionsBudgetMs: 0,
      acquireImage: () => Promise.reject(new Error('evaluation queries pass their bytes')),
    });
    const runner = new EvaluationRunner({
      pool: app.db.pool,
      queue: app.queue,
      blobs: app.blobs,
      log: app.log.child({ domain: 'search-evaluation' }),
      rank: (accountId, serviceId, bytes, count) => search.rankRecords(accountId, serviceId, bytes, count),
      turnMs: config.evaluationTurnMs,
    });
    app.decorate('searchEvaluations', runner);

    const ownService = async (accountId: number, serviceId: string) => {
      const service = await findServiceState(app.db.pool, accountId, serviceId);
      if (!service) throw new ApiError('serviceNotFound', 'search service does not exist');
      return service;
    };

    app.post(PATH, serve(operationById('startSearchEvaluation'), async ({ input, params: { service_id }, ctx }) => {
      const service = await ownService(ctx.accountId, service_id);
      const params = parseEvaluationParams(input);
      const row = await insertEvaluation(
        app.db.pool,
        { id: newResourceId(), serviceId: service.id, accountId: ctx.accountId, sampleSize: params.sampleSize, edits: params.edits, rerankCandidates: config.rerankCandidates },
        config.evaluationsPerAccount,
      );
      if (!row) throw new ApiError('evaluationRunning', `an evaluation of this service is already running, or the account runs ${config.evaluationsPerAccount} already`);
      await runner.enqueue(row.id);
      return evaluationObject(service.id, row, ctx.requestId);
    }));

    app.get(PATH, serve(operationById('getSearchEvaluation'), async ({ params: { service_id }, ctx }) => {
      const service = await ownService(ctx.accountId, service_id);
      return evaluationObject(service.id, await latestEvaluation(app.db.pool, ctx.accountId, service.id), ctx.requestId);
    }));

    app.addHook('onReady', async () => {
      const resumed = await runner.recover();
      if (resumed) app.log.info({ evaluations: resumed }, 'resuming search evaluations');
    });
    app.addHook('preClose', async () => runner.close());
  },
  { name: 'search-evaluation', dependencies: ['database', 'queue', 'inference', 'blob-store', 'search-services'] },
);

export const searchEvaluationDomain: Domain = {
  name: 'search-evaluation',
  routes,
  jobs: (app) => [
    defineJob<EvaluationJobData>({
      name: EVALUATION_JOB,
      // One evaluation per process at a time; a turn lasts IRIS_EVALUATION_TURN_SECONDS, then the next is queued.
      concurrency: 1,
      queue: { policy: 'short', retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: app.config.search.evaluationTurnMs / 1000 + 600 },
      handler: async (data) => {
        await app.searchEvaluations.runTurn(data.evaluationId);
      },
    }),
  ],
};
