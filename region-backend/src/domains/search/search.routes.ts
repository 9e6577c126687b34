/** Search queries: `POST /search/{service_id}` (image results) and `POST /product_search/{service_id}` (products). */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ProductSearchQuery, SearchQuery } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { acquireQueryImage } from '../../http/query-image.js';
import { SearchQueryService } from './search.service.js';

type ById = FastifyRequest<{ Params: { id: string } }>;

export const searchRoutes: FastifyPluginAsync = async (app) => {
  const search = new SearchQueryService({
    pool: app.db.pool,
    inference: app.inference,
    indexes: app.searchIndexes,
    embedders: app.searchEmbedders,
    decoder: app.decoder,
    rerankCandidates: app.config.search.rerankCandidates,
    acquireImage: (query, accountId) => acquireQueryImage(app, query, accountId),
  });

  const handler = (product: boolean) => async (request: ById) =>
    search.query({
      accountId: request.ctx.accountId,
      serviceId: request.params.id,
      query: product ? inputOf(request, ProductSearchQuery) : inputOf(request, SearchQuery),
      product,
      requestId: request.ctx.requestId,
      startedAt: request.ctx.startedAt,
    });
  app.post('/search/:id', handler(false));
  app.post('/product_search/:id', handler(true));
};
