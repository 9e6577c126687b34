/** Training sets (`/custom_training/_0000194/training_sets`): sets, data files, clear. */
import type { FastifyPluginAsync } from 'fastify';
import { operationById } from '@iris/shared';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import { dataSetObject } from '../data-sets/set-view.js';
import type { Domain } from '../domain.js';
import { TrainingSetService } from './training-set.service.js';

const BASE = '/custom_training/_0000194/training_sets';
const BY_ID = `${BASE}/:training_set_id`;

const routes: FastifyPluginAsync = async (app) => {
  const service = new TrainingSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });

  app.post(BASE, serve(operationById('createTrainingSet'), async ({ input, ctx, request, reply }) => {
    const row = await service.create(ctx.accountId, mintedId(request), input);
    reportRegistry(reply, { live: [row.id] });
    return dataSetObject(row, ctx.requestId);
  }));

  app.get(BASE, serve(operationById('listTrainingSets'), async ({ ctx }) => ({
    request_id: ctx.requestId,
    results: (await service.list(ctx.accountId)).map((row) => dataSetObject(row)),
  })));

  app.get(BY_ID, serve(operationById('getTrainingSet'), async ({ params, ctx }) => dataSetObject(await service.get(ctx.accountId, params.training_set_id), ctx.requestId)));

  app.put(BY_ID, serve(operationById('modifyTrainingSet'), async ({ input, params, ctx }) => {
    return dataSetObject(await service.modify(ctx.accountId, params.training_set_id, input), ctx.requestId);
  }));

  // The specification answers 200 (with a body) here, unlike image sets.
  app.delete(BY_ID, serve(operationById('deleteTrainingSet'), async ({ params, ctx, reply }) => {
    await service.delete(ctx.accountId, params.training_set_id);
    reportRegistry(reply, { deleted: [params.training_set_id] });
    return { request_id: ctx.requestId };
  }));

  app.post(`${BY_ID}/images`, serve(operationById('addTrainingData'), async ({ input, params, ctx }) => {
    return dataSetObject(await service.addData(ctx.accountId, params.training_set_id, input, ctx.quotas), ctx.requestId);
  }));

  app.delete(`${BY_ID}/images`, serve(operationById('deleteTrainingData'), async ({ input, params, ctx }) => {
    return dataSetObject(await service.deleteData(ctx.accountId, params.training_set_id, input), ctx.requestId);
  }));

  app.delete(`${BY_ID}/clear`, serve(operationById('clearTrainingSet'), async ({ input, params, ctx }) => {
    return dataSetObject(await service.clear(ctx.accountId, params.training_set_id, input), ctx.requestId);
  }));
};

export const trainingSetsDomain: Domain = { name: 'training-sets', routes };
