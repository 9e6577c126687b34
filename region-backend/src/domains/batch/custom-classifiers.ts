/**
 * The account's custom classifiers as batch services, through the custom-training domain's public pieces:
 * its status query and `ClassifierInference` (model cache, prediction, classify envelope). The
 * inference pool given here is batch's background view, so predictions queue behind interactive queries.
 */
import type pg from 'pg';
import { isApiError } from '@iris/shared';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import { ClassifierInference } from '../custom-training/classifier-inference.js';
import { listCustomServices, servingState } from '../custom-training/custom-service.repo.js';
import { parseTopk } from '../custom-training/custom-training.routes.js';
import { ServiceGoneError, type CustomClassifierSource } from './batch-services.js';

export function customClassifierSource(deps: { pool: pg.Pool; inference: InferencePool; decoder: ImageDecoderPool; defaultTopk: number }): CustomClassifierSource {
  const classifier = new ClassifierInference({ pool: deps.pool, inference: deps.inference, decoder: deps.decoder, decodePriority: 'background' });
  return {
    async running(accountId) {
      return (await listCustomServices(deps.pool, accountId)).filter((s) => s.status === 'running').map((s) => s.id);
    },
    async status(accountId, serviceId) {
      const state = await servingState(deps.pool, accountId, serviceId);
      if (!state || state.status === 'deleted') return null;
      return state.status === 'running' && state.trained_at ? 'running' : 'unusable';
    },
    validate(params) {
      parseTopk(params.topk, deps.defaultTopk);
    },
    async classify(accountId, serviceId, input) {
      let served;
      try {
        served = await classifier.model(accountId, serviceId);
      } catch (err) {
        // Deleted or no longer running since the task started: the task cannot go on.
        if (isApiError(err)) throw new ServiceGoneError(err.message);
        throw err;
      }
      const topk = parseTopk(input.params.topk, deps.defaultTopk);
      return classifier.classify(served, { bytes: input.bytes, topk, requestId: input.requestId, downloadMs: input.downloadMs, startedAt: input.startedAt });
    },
  };
}
