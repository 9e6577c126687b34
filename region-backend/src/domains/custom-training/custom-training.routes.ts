/**
 * Custom training services (`/custom_training/_0000194/...services`) and classifier inference
 * (`POST /custom_training/{service_id}`, answered in the classify envelope, errors in the analysis shape).
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError, operationById } from '@iris/shared';
import { acquireQueryImage, QueryImageError } from '../../http/query-image.js';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import { analysisError } from '../analysis/analysis-errors.js';
import type { ClassifierInference } from './classifier-inference.js';
import type { CustomServiceService } from './custom-service.service.js';
import { customServiceObject } from './custom-service-view.js';

const BASE = '/custom_training/_0000194';

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

    app.post(`${BASE}/training_sets/:training_set_id/services`, serve(operationById('createCustomService'), async ({ input, params, ctx, request, reply }) => {
      const row = await services.create(ctx.accountId, mintedId(request), params.training_set_id, input);
      reportRegistry(reply, { live: [row.id] });
      return customServiceObject(row, ctx.requestId);
    }));

    app.get(`${BASE}/services`, serve(operationById('listCustomServices'), async ({ ctx }) => ({
      request_id: ctx.requestId,
      results: (await services.list(ctx.accountId)).map((row) => customServiceObject(row)),
    })));

    app.get(`${BASE}/services/:service_id`, serve(operationById('getCustomService'), async ({ params, ctx }) => customServiceObject(await services.get(ctx.accountId, params.service_id), ctx.requestId)));

    app.put(`${BASE}/services/:service_id`, serve(operationById('renameCustomService'), async ({ input, params, ctx }) =>
      customServiceObject(await services.rename(ctx.accountId, params.service_id, input), ctx.requestId)));
    app.patch(`${BASE}/services/:service_id`, serve(operationById('patchCustomService'), async ({ input, params, ctx }) =>
      customServiceObject(await services.rename(ctx.accountId, params.service_id, input), ctx.requestId)));

    app.delete(`${BASE}/services/:service_id`, serve(operationById('deleteCustomService'), async ({ params, ctx, reply }) => {
      const row = await services.delete(ctx.accountId, params.service_id);
      reportRegistry(reply, { deleted: [row.id] });
      return customServiceObject(row, ctx.requestId);
    }));

    app.post('/custom_training/:service_id', serve(operationById('classifyCustom'), async ({ input, params, ctx, request }) => {
      const body = await readBody(request, { tmpDir: app.config.uploadDir, paramError: (message) => analysisError('classify', 'bad-loc', message) });
      const served = await inference.model(ctx.accountId, params.service_id);
      const topk = parseTopk(body.fields.topk, deps.defaultTopk);
      let image;
      try {
        image = await acquireQueryImage(app, input, ctx.accountId);
      } catch (err) {
        if (err instanceof QueryImageError) throw analysisError('classify', err.problem, err.message);
        throw err;
      }
      return inference.classify(served, { bytes: image.bytes, topk, requestId: ctx.requestId, downloadMs: image.downloadMs, startedAt: ctx.startedAt });
    }));
  };
}
