/**
 * Image sets (`/image_sets/_0000014`). The one `POST /image_sets/_0000014/{id}` carries delete (no body),
 * add one (`image_url` or `url`), add many (`urls_to_add`), delete many (`urls_to_delete`) and, for
 * clients that modify with POST, `name`/`description`: told apart by the body.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AddImage, AddImages, ApiError, CreateImageSet, DeleteImages, ImageSetPost, ModifyImageSet } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { dataSetObject } from '../data-sets/set-view.js';
import type { Domain } from '../domain.js';
import { ImageSetService } from './image-set.service.js';

const BASE = '/image_sets/_0000014';

type ById = FastifyRequest<{ Params: { id: string } }>;

const routes: FastifyPluginAsync = async (app) => {
  const service = new ImageSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });

  app.post(BASE, async (request, reply) => {
    const id = mintedId(request);
    const row = await service.create(request.ctx.accountId, id, inputOf(request, CreateImageSet));
    reportRegistry(reply, { live: [row.id] });
    return dataSetObject(row, request.ctx.requestId);
  });

  const list = async (request: FastifyRequest) => ({
    request_id: request.ctx.requestId,
    results: (await service.list(request.ctx.accountId)).map((row) => dataSetObject(row)),
  });
  app.get(BASE, list);
  app.get('/get_image_sets/_0000014', list);

  app.get(`${BASE}/:id`, async (request: ById) => dataSetObject(await service.get(request.ctx.accountId, request.params.id), request.ctx.requestId));

  app.put(`${BASE}/:id`, async (request: ById) => {
    return dataSetObject(await service.modify(request.ctx.accountId, request.params.id, inputOf(request, ModifyImageSet)), request.ctx.requestId);
  });

  const remove = async (request: ById, reply: FastifyReply) => {
    await service.delete(request.ctx.accountId, request.params.id);
    reportRegistry(reply, { deleted: [request.params.id] });
    return reply.code(204).send();
  };
  app.delete(`${BASE}/:id`, remove);

  app.post(`${BASE}/:id`, async (request: ById, reply) => {
    // The body was parsed by the contract (ImageSetPost); which operation it is depends on the fields given.
    const input: Record<string, unknown> = inputOf(request, ImageSetPost);
    const has = (field: string) => input[field] !== undefined;
    const { accountId } = request.ctx;
    const id = request.params.id;
    let row;
    if (has('urls_to_add')) row = await service.addMany(accountId, id, inputOf(request, AddImages), request.ctx.quotas);
    else if (has('urls_to_delete')) row = await service.deleteMany(accountId, id, inputOf(request, DeleteImages));
    else if (has('image_url') || has('url')) row = await service.addOne(accountId, id, inputOf(request, AddImage), request.ctx.quotas);
    else if (has('name') || has('description')) row = await service.modify(accountId, id, inputOf(request, ModifyImageSet));
    // Only a request without any body deletes the set: `{}`, `{"image_url": null}` or an unknown field is refused.
    else if ((await readBody(request, { tmpDir: app.config.uploadDir })).noBody) return remove(request, reply);
    else throw new ApiError('invalidData', 'unrecognised request: give image_url, urls_to_add or urls_to_delete, or no body at all to delete the set');
    return dataSetObject(row, request.ctx.requestId);
  });
};

export const imageSetsDomain: Domain = { name: 'image-sets', routes };
