/** Training sets (`/custom_training/_0000194/training_sets`): sets, data files, clear. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AddTrainingData, ClearTrainingSet, CreateTrainingSet, DeleteTrainingData, ModifyTrainingSet } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { dataSetObject } from '../data-sets/set-view.js';
import type { Domain } from '../domain.js';
import { TrainingSetService } from './training-set.service.js';

const BASE = '/custom_training/_0000194/training_sets';

type ById = FastifyRequest<{ Params: { id: string } }>;

const routes: FastifyPluginAsync = async (app) => {
  const service = new TrainingSetService({ pool: app.db.pool, downloads: app.downloads, bulkWrites: app.bulkWrites });

  app.post(BASE, async (request, reply) => {
    const row = await service.create(request.ctx.accountId, mintedId(request), inputOf(request, CreateTrainingSet));
    reportRegistry(reply, { live: [row.id] });
    return dataSetObject(row, request.ctx.requestId);
  });

  app.get(BASE, async (request) => ({
    request_id: request.ctx.requestId,
    results: (await service.list(request.ctx.accountId)).map((row) => dataSetObject(row)),
  }));

  app.get(`${BASE}/:id`, async (request: ById) => dataSetObject(await service.get(request.ctx.accountId, request.params.id), request.ctx.requestId));

  app.put(`${BASE}/:id`, async (request: ById) => {
    return dataSetObject(await service.modify(request.ctx.accountId, request.params.id, inputOf(request, ModifyTrainingSet)), request.ctx.requestId);
  });

  // The specification answers 200 (with a body) here, unlike image sets.
  app.delete(`${BASE}/:id`, async (request: ById, reply) => {
    await service.delete(request.ctx.accountId, request.params.id);
    reportRegistry(reply, { deleted: [request.params.id] });
    return { request_id: request.ctx.requestId };
  });

  app.post(`${BASE}/:id/images`, async (request: ById) => {
    const input = inputOf(request, AddTrainingData);
    return dataSetObject(await service.addData(request.ctx.accountId, request.params.id, input, request.ctx.quotas), request.ctx.requestId);
  });

  app.delete(`${BASE}/:id/images`, async (request: ById) => {
    return dataSetObject(await service.deleteData(request.ctx.accountId, request.params.id, inputOf(request, DeleteTrainingData)), request.ctx.requestId);
  });

  app.delete(`${BASE}/:id/clear`, async (request: ById) => {
    return dataSetObject(await service.clear(request.ctx.accountId, request.params.id, inputOf(request, ClearTrainingSet)), request.ctx.requestId);
  });
};

export const trainingSetsDomain: Domain = { name: 'training-sets', routes };
