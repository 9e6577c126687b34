/**
 * Custom training services (`/custom_training/_0000194/...services`) and classifier inference
 * (`POST /custom_training/{service_id}`, answered in the classify envelope, errors in the analysis shape).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError, ClassifierQuery, CreateCustomService, RenameCustomService } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { acquireQueryImage, QueryImageError } from '../../http/query-image.js';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { analysisError } from '../analysis/analysis-errors.js';
import type { ClassifierInference } from './classifier-inference.js';
import type { CustomServiceService } from './custom-service.service.js';
import { customServiceObject } from './custom-service-view.js';

const BASE = '/custom_training/_0000194';

type ById = FastifyRequest<{ Params: { id: string } }>;

/** `topk`: a positive integer (default `fallback`); more than the labels means all of them. */
export function parseTopk(raw: string | undefined, fallback: number): number {
  const text = (raw ?? '').trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new ApiError('analysisBadRequest', 'topk must be a positive integer');
  return value;
}

export function customTrainingRoutes(deps: { services: CustomServiceService; inference: ClassifierInference; defaultTopk: number }): FastifyPluginAsync {
  const { services, inference } = deps;
  return async (app) => {

    app.post(`${BASE}/training_sets/:id/services`, async (request: ById, reply) => {
      const row = await services.create(request.ctx.accountId, mintedId(request), request.params.id, inputOf(request, CreateCustomService));
      reportRegistry(reply, { live: [row.id] });
      return customServiceObject(row, request.ctx.requestId);
    });

    app.get(`${BASE}/services`, async (request) => ({
      request_id: request.ctx.requestId,
      results: (await services.list(request.ctx.accountId)).map((row) => customServiceObject(row)),
    }));

    app.get(`${BASE}/services/:id`, async (request: ById) => customServiceObject(await services.get(request.ctx.accountId, request.params.id), request.ctx.requestId));

    const rename = async (request: ById) =>
      customServiceObject(await services.rename(request.ctx.accountId, request.params.id, inputOf(request, RenameCustomService)), request.ctx.requestId);
    app.put(`${BASE}/services/:id`, rename);
    app.patch(`${BASE}/services/:id`, rename);

    app.delete(`${BASE}/services/:id`, async (request: ById, reply) => {
      const row = await services.delete(request.ctx.accountId, request.params.id);
      reportRegistry(reply, { deleted: [row.id] });
      return customServiceObject(row, request.ctx.requestId);
    });

    app.post('/custom_training/:id', async (request: ById) => {
      const body = await readBody(request, { tmpDir: app.config.uploadDir, paramError: (message) => analysisError('classify', 'bad-loc', message) });
      const served = await inference.model(request.ctx.accountId, request.params.id);
      const topk = parseTopk(body.fields.topk, deps.defaultTopk);
      let image;
      try {
        image = await acquireQueryImage(app, inputOf(request, ClassifierQuery), request.ctx.accountId);
      } catch (err) {
        if (err instanceof QueryImageError) throw analysisError('classify', err.problem, err.message);
        throw err;
      }
      return inference.classify(served, { bytes: image.bytes, topk, requestId: request.ctx.requestId, downloadMs: image.downloadMs, startedAt: request.ctx.startedAt });
    });
  };
}
