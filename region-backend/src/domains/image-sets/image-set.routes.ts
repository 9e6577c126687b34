/**
 * Image sets (`/image_sets/_0000014`). The one `POST /image_sets/_0000014/{id}` carries delete (no body),
 * add one (`image_url` or `url`), add many (`urls_to_add`), delete many (`urls_to_delete`) and, for
 * clients that modify with POST, `name`/`description`: told apart by the body.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ApiError, isAddImage, isAddImages, isDeleteImages, isModifyImageSet, operationById } from '@iris/shared';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry, type RequestContext } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import { dataSetObject } from '../data-sets/set-view.js';
import type { Domain } from '../domain.js';
import { ImageSetService } from './image-set.service.js';

const BASE = '/image_sets/_0000014';

const routes: FastifyPluginAsync = async (app) => {
  const service = new ImageSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });

  app.post(BASE, serve(operationById('createImageSet'), async ({ input, ctx, request, reply }) => {
    const id = mintedId(request);
    const row = await service.create(ctx.accountId, id, input);
    reportRegistry(reply, { live: [row.id] });
    return dataSetObject(row, ctx.requestId);
  }));

  const list = async (ctx: RequestContext) => ({
    request_id: ctx.requestId,
    results: (await service.list(ctx.accountId)).map((row) => dataSetObject(row)),
  });
  app.get(BASE, serve(operationById('listImageSetsAlias'), ({ ctx }) => list(ctx)));
  app.get('/get_image_sets/_0000014', serve(operationById('listImageSets'), ({ ctx }) => list(ctx)));

  app.get(`${BASE}/:image_set_id`, serve(operationById('getImageSet'), async ({ params, ctx }) => dataSetObject(await service.get(ctx.accountId, params.image_set_id), ctx.requestId)));

  app.put(`${BASE}/:image_set_id`, serve(operationById('modifyImageSet'), async ({ input, params, ctx }) => {
    return dataSetObject(await service.modify(ctx.accountId, params.image_set_id, input), ctx.requestId);
  }));

  const remove = async (ctx: RequestContext, id: string, reply: FastifyReply) => {
    await service.delete(ctx.accountId, id);
    reportRegistry(reply, { deleted: [id] });
    return reply.code(204).send();
  };
  app.delete(`${BASE}/:image_set_id`, serve(operationById('deleteImageSet'), ({ params, ctx, reply }) => remove(ctx, params.image_set_id, reply)));

  app.post(`${BASE}/:image_set_id`, serve(operationById('postImageSet'), async ({ input, params, ctx, request, reply }) => {
    // Which operation the body is depends on the fields given.
    const { accountId } = ctx;
    const id = params.image_set_id;
    let row;
    if (isAddImages(input)) row = await service.addMany(accountId, id, input, ctx.quotas);
    else if (isDeleteImages(input)) row = await service.deleteMany(accountId, id, input);
    else if (isAddImage(input)) row = await service.addOne(accountId, id, input, ctx.quotas);
    else if (isModifyImageSet(input)) row = await service.modify(accountId, id, input);
    // Only a request without any body deletes the set: `{}`, `{"image_url": null}` or an unknown field is refused.
    else if ((await readBody(request, { tmpDir: app.config.uploadDir })).noBody) return remove(ctx, id, reply);
    else throw new ApiError('invalidData', 'unrecognised request: give image_url, urls_to_add or urls_to_delete, or no body at all to delete the set');
    return dataSetObject(row, ctx.requestId);
  }));
};

export const imageSetsDomain: Domain = { name: 'image-sets', routes };
