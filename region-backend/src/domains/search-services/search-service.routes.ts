/**
 * Search services: create on an image set or a product set, and list / get / rename / delete through
 * `/customer_services/_0000172` (every search service of the account) and `/product_sets/_0000178/services`
 * (product-set services only).
 */
import type { FastifyPluginAsync } from 'fastify';
import { operationById, type OperationOf } from '@iris/shared';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import type { SearchServiceKind } from './search-service.repo.js';
import { SearchServiceService } from './search-service.service.js';
import { searchServiceObject } from './search-service-view.js';

export const searchServiceRoutes: FastifyPluginAsync = async (app) => {
  const service = new SearchServiceService({ pool: app.db.pool, indexes: app.searchIndexes, embedders: app.searchEmbedders });

  app.post('/image_sets/_0000014/:image_set_id/services', serve(operationById('createImageSetService'), async ({ input, params, ctx, request, reply }) => {
    const row = await service.createOnImageSet(ctx.accountId, mintedId(request), params.image_set_id, input, ctx.quotas.searchServicesPerSet);
    reportRegistry(reply, { live: [row.id] });
    return searchServiceObject(row, ctx.requestId);
  }));

  app.post('/product_sets/_0000178/:product_set_id/services', serve(operationById('createProductSetService'), async ({ input, params, ctx, request, reply }) => {
    const row = await service.createOnProductSet(ctx.accountId, mintedId(request), params.product_set_id, input, ctx.quotas.searchServicesPerSet);
    reportRegistry(reply, { live: [row.id] });
    return searchServiceObject(row, ctx.requestId);
  }));

  /** List / get / rename / delete under one base: every search service, or product-set services only. */
  type Manage = 'SearchServices' | 'ProductSetServices';
  const mount = (base: string, ops: { [Verb in 'list' | 'get' | 'rename' | 'patch' | 'delete']: OperationOf<`${Verb}${Manage}`> }, kind?: SearchServiceKind) => {
    app.get(base, serve(ops.list, async ({ ctx }) => ({
      request_id: ctx.requestId,
      results: (await service.list(ctx.accountId, kind)).map((row) => searchServiceObject(row)),
    })));
    app.get(`${base}/:service_id`, serve(ops.get, async ({ params, ctx }) => searchServiceObject(await service.get(ctx.accountId, params.service_id, kind), ctx.requestId)));
    app.put(`${base}/:service_id`, serve(ops.rename, async ({ input, params, ctx }) => searchServiceObject(await service.rename(ctx.accountId, params.service_id, input, kind), ctx.requestId)));
    app.patch(`${base}/:service_id`, serve(ops.patch, async ({ input, params, ctx }) => searchServiceObject(await service.rename(ctx.accountId, params.service_id, input, kind), ctx.requestId)));
    app.delete(`${base}/:service_id`, serve(ops.delete, async ({ params, ctx, reply }) => {
      await service.delete(ctx.accountId, params.service_id, kind);
      reportRegistry(reply, { deleted: [params.service_id] });
      return reply.code(204).send();
    }));
  };
  const opsOf = <M extends Manage>(ids: M) => ({
    list: operationById(`list${ids}`), get: operationById(`get${ids}`), rename: operationById(`rename${ids}`), patch: operationById(`patch${ids}`), delete: operationById(`delete${ids}`),
  });
  mount('/customer_services/_0000172', opsOf('SearchServices'));
  mount('/product_sets/_0000178/services', opsOf('ProductSetServices'), 'product_set');
};
