/** Search queries: `POST /search/{service_id}` (image results) and `POST /product_search/{service_id}` (products). */
import type { FastifyPluginAsync } from 'fastify';
import { operationById } from '@iris/shared';
import { acquireQueryImage } from '../../http/query-image.js';
import { serve } from '../../http/serve.js';
import { SearchQueryService } from './search.service.js';

export const searchRoutes: FastifyPluginAsync = async (app) => {
  const search = new SearchQueryService({
    pool: app.db.pool,
    inference: app.inference,
    indexes: app.searchIndexes,
    embedders: app.searchEmbedders,
    decoder: app.decoder,
    rerankCandidates: app.config.search.rerankCandidates,
    maxRegions: app.config.search.maxRegions,
    regionsBudgetMs: app.config.search.regionsBudgetMs,
    acquireImage: (query, accountId) => acquireQueryImage(app, query, accountId),
  });

  app.post('/search/:service_id', serve(operationById('search'), ({ input, params, ctx }) =>
    search.searchImages({ accountId: ctx.accountId, serviceId: params.service_id, query: input, requestId: ctx.requestId, startedAt: ctx.startedAt })));
  app.post('/product_search/:service_id', serve(operationById('productSearch'), ({ input, params, ctx }) =>
    search.searchProducts({ accountId: ctx.accountId, serviceId: params.service_id, query: input, requestId: ctx.requestId, startedAt: ctx.startedAt })));
};
