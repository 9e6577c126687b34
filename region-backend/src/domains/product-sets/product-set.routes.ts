/** Product sets (`/product_sets/_0000178`) and their products (`/{id}/products`). */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AddProduct, AddProducts, ApiError, CreateProductSet, DeleteProductsFile, LIMITS, ModifyProductSet, ProductsPost } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { readBody, type RequestBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import type { Domain } from '../domain.js';
import { idsFrom } from './product-files.js';
import { ProductSetService } from './product-set.service.js';
import { productObject, productSetObject } from './product-set-view.js';

const BASE = '/product_sets/_0000178';

type ById = FastifyRequest<{ Params: { id: string } }>;

function intField(value: string | undefined, fallback: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) ? n : fallback;
}

const routes: FastifyPluginAsync = async (app) => {
  const service = new ProductSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });
  const body = (request: FastifyRequest): Promise<RequestBody> => readBody(request, { tmpDir: app.config.uploadDir });

  app.post(BASE, async (request, reply) => {
    const row = await service.create(request.ctx.accountId, mintedId(request), inputOf(request, CreateProductSet));
    reportRegistry(reply, { live: [row.id] });
    return productSetObject(row, request.ctx.requestId);
  });

  app.get(BASE, async (request) => ({
    request_id: request.ctx.requestId,
    results: (await service.list(request.ctx.accountId)).map((row) => productSetObject(row)),
  }));

  app.delete(BASE, async (request, reply) => {
    const deleted = await service.deleteAll(request.ctx.accountId);
    reportRegistry(reply, { deleted });
    return reply.code(204).send();
  });

  app.get(`${BASE}/:id`, async (request: ById) => productSetObject(await service.get(request.ctx.accountId, request.params.id), request.ctx.requestId));

  const modify = async (request: ById) => {
    return productSetObject(await service.modify(request.ctx.accountId, request.params.id, inputOf(request, ModifyProductSet)), request.ctx.requestId);
  };
  app.post(`${BASE}/:id`, modify);
  app.put(`${BASE}/:id`, modify);

  app.delete(`${BASE}/:id`, async (request: ById, reply) => {
    await service.delete(request.ctx.accountId, request.params.id);
    reportRegistry(reply, { deleted: [request.params.id] });
    return reply.code(204).send();
  });

  app.post(`${BASE}/:id/products`, async (request: ById) => {
    // The body was parsed by the contract (ProductsPost); the fields given tell the operation apart.
    const input: Record<string, unknown> = inputOf(request, ProductsPost);
    const { accountId } = request.ctx;
    if (input.products_to_add !== undefined) await service.addProducts(accountId, request.params.id, inputOf(request, AddProducts), request.ctx.quotas);
    else if (input.products_to_delete !== undefined) await service.deleteProductsByFile(accountId, request.params.id, inputOf(request, DeleteProductsFile));
    else await service.addProduct(accountId, request.params.id, inputOf(request, AddProduct), request.ctx.quotas);
    return { ok: true, request_id: request.ctx.requestId };
  });

  app.get(`${BASE}/:id/products`, async (request: ById) => {
    const parsed = await body(request);
    const ids = idsFrom(parsed.json, parsed.fields.ids);
    if (ids) {
      const rows = await service.productsByIds(request.ctx.accountId, request.params.id, ids);
      return { request_id: request.ctx.requestId, results: rows.map(productObject) };
    }
    const page = intField(parsed.fields.page, 0);
    const count = intField(parsed.fields.count, LIMITS.countDefault);
    const { total, rows } = await service.listProducts(request.ctx.accountId, request.params.id, page, count);
    return { request_id: request.ctx.requestId, page, count, total, results: rows.map(productObject) };
  });

  app.delete(`${BASE}/:id/products`, async (request: ById, reply) => {
    const parsed = await body(request);
    const ids = idsFrom(parsed.json, parsed.fields.ids);
    if (!ids?.length) throw new ApiError('invalidData', 'ids is required: a list of product_id values');
    await service.deleteProductsByIds(request.ctx.accountId, request.params.id, ids);
    return reply.code(204).send();
  });
};

export const productSetsDomain: Domain = { name: 'product-sets', routes };
