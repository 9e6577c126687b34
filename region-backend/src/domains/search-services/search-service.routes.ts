/**
 * Search services: create on an image set or a product set, and list / get / rename / delete through
 * `/customer_services/_0000172` (every search service of the account) and `/product_sets/_0000178/services`
 * (product-set services only).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CreateSearchService, RenameService } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import type { SearchServiceKind } from './search-service.repo.js';
import { SearchServiceService } from './search-service.service.js';
import { searchServiceObject } from './search-service-view.js';

type ById = FastifyRequest<{ Params: { id: string } }>;

export const searchServiceRoutes: FastifyPluginAsync = async (app) => {
  const service = new SearchServiceService({ pool: app.db.pool, indexes: app.searchIndexes, embedders: app.searchEmbedders });

  app.post('/image_sets/_0000014/:id/services', async (request: ById, reply) => {
    const row = await service.createOnImageSet(request.ctx.accountId, mintedId(request), request.params.id, inputOf(request, CreateSearchService), request.ctx.quotas.searchServicesPerSet);
    reportRegistry(reply, { live: [row.id] });
    return searchServiceObject(row, request.ctx.requestId);
  });

  app.post('/product_sets/_0000178/:id/services', async (request: ById, reply) => {
    const row = await service.createOnProductSet(request.ctx.accountId, mintedId(request), request.params.id, inputOf(request, CreateSearchService), request.ctx.quotas.searchServicesPerSet);
    reportRegistry(reply, { live: [row.id] });
    return searchServiceObject(row, request.ctx.requestId);
  });

  const mount = (base: string, kind?: SearchServiceKind) => {
    app.get(base, async (request) => ({
      request_id: request.ctx.requestId,
      results: (await service.list(request.ctx.accountId, kind)).map((row) => searchServiceObject(row)),
    }));
    app.get(`${base}/:id`, async (request: ById) => searchServiceObject(await service.get(request.ctx.accountId, request.params.id, kind), request.ctx.requestId));
    const rename = async (request: ById) =>
      searchServiceObject(await service.rename(request.ctx.accountId, request.params.id, inputOf(request, RenameService), kind), request.ctx.requestId);
    app.put(`${base}/:id`, rename);
    app.patch(`${base}/:id`, rename);
    app.delete(`${base}/:id`, async (request: ById, reply: FastifyReply) => {
      await service.delete(request.ctx.accountId, request.params.id, kind);
      reportRegistry(reply, { deleted: [request.params.id] });
      return reply.code(204).send();
    });
  };
  mount('/customer_services/_0000172');
  mount('/product_sets/_0000178/services', 'product_set');
};
