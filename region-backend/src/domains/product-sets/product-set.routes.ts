/** Product sets (`/product_sets/_0000178`) and their products (`/{id}/products`). */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError, isAddProducts, isDeleteProductsFile, LIMITS, operationById, type AddProductInput } from '@iris/shared';
import { readBody, type RequestBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { idsFrom } from './product-files.js';
import { ProductSetService } from './product-set.service.js';
import { productObject, productSetObject } from './product-set-view.js';

const BASE = '/product_sets/_0000178';
const BY_ID = `${BASE}/:product_set_id`;

function intField(value: string | undefined, fallback: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) ? n : fallback;
}

const routes: FastifyPluginAsync = async (app) => {
  const service = new ProductSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });
  const body = (request: FastifyRequest): Promise<RequestBody> => readBody(request, { tmpDir: app.config.uploadDir });

  app.post(BASE, serve(operationById('createProductSet'), async ({ input, ctx, request, reply }) => {
    const row = await service.create(ctx.accountId, mintedId(request), input);
    reportRegistry(reply, { live: [row.id] });
    return productSetObject(row, ctx.requestId);
  }));

  app.get(BASE, serve(operationById('listProductSets'), async ({ ctx }) => ({
    request_id: ctx.requestId,
    results: (await service.list(ctx.accountId)).map((row) => productSetObject(row)),
  })));

  app.delete(BASE, serve(operationById('deleteAllProductSets'), async ({ ctx, reply }) => {
    const deleted = await service.deleteAll(ctx.accountId);
    reportRegistry(reply, { deleted });
    return reply.code(204).send();
  }));

  app.get(BY_ID, serve(operationById('getProductSet'), async ({ params, ctx }) => productSetObject(await service.get(ctx.accountId, params.product_set_id), ctx.requestId)));

  for (const modify of [operationById('modifyProductSet'), operationById('modifyProductSetPut')]) {
    app.route({
      method: modify.method.toUpperCase() as 'POST' | 'PUT',
      url: BY_ID,
      ...serve(modify, async ({ input, params, ctx }) => productSetObject(await service.modify(ctx.accountId, params.product_set_id, input), ctx.requestId)),
    });
  }

  app.delete(BY_ID, serve(operationById('deleteProductSet'), async ({ params, ctx, reply }) => {
    await service.delete(ctx.accountId, params.product_set_id);
    reportRegistry(reply, { deleted: [params.product_set_id] });
    return reply.code(204).send();
  }));

  app.post(`${BY_ID}/products`, serve(operationById('postProducts'), async ({ input, params, ctx }) => {
    // The fields given tell the operation apart.
    const { accountId } = ctx;
    if (isAddProducts(input)) await service.addProducts(accountId, params.product_set_id, input, ctx.quotas);
    else if (isDeleteProductsFile(input)) await service.deleteProductsByFile(accountId, params.product_set_id, input);
    else await service.addProduct(accountId, params.product_set_id, input satisfies AddProductInput, ctx.quotas);
    return { ok: true, request_id: ctx.requestId };
  }));

  app.get(`${BY_ID}/products`, serve(operationById('listProducts'), async ({ params, ctx, request }) => {
    const parsed = await body(request);
    const ids = idsFrom(parsed.json, parsed.fields.ids);
    if (ids) {
      const rows = await service.productsByIds(ctx.accountId, params.product_set_id, ids);
      return { request_id: ctx.requestId, results: rows.map(productObject) };
    }
    const page = intField(parsed.fields.page, 0);
    const count = intField(parsed.fields.count, LIMITS.countDefault);
    const { total, rows } = await service.listProducts(ctx.accountId, params.product_set_id, page, count);
    return { request_id: ctx.requestId, page, count, total, results: rows.map(productObject) };
  }));

  app.delete(`${BY_ID}/products`, serve(operationById('deleteProducts'), async ({ params, ctx, request, reply }) => {
    const parsed = await body(request);
    const ids = idsFrom(parsed.json, parsed.fields.ids);
    if (!ids?.length) throw new ApiError('invalidData', 'ids is required: a list of product_id values');
    await service.deleteProductsByIds(ctx.accountId, params.product_set_id, ids);
    return reply.code(204).send();
  }));
};

export const productSetsDomain: Domain = { name: 'product-sets', routes };
