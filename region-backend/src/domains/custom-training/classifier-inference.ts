/**
 * Inference of a trained custom classifier: the service's model (read from PostgreSQL once per process and
 * version, so any backend process can serve any service), applied to a query image inside a worker thread.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ApiError } from '@iris/shared';
import { ImageDecodeError } from '../../images/image-errors.js';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { InferenceTaskError, type InferencePool, type Priority } from '../../inference/inference-pool.js';
import type { ClassifierPrediction } from '../../inference/tasks/classifier-predict.task.js';
import { featurePayload, servableFeatures, type FeaturePipeline } from '../../vision/training/feature-pipeline.js';
import { bytesToFloat32 } from '../../vision/training/float-bytes.js';
import { assertClassifier, type LinearClassifier } from '../../vision/training/linear-classifier.js';
import { analysisError } from '../analysis/analysis-errors.js';
import { buildEnvelope } from '../analysis/analysis-envelope.js';
import type { EnvelopeAnswers } from '../analysis/analysis-registry.js';
import { findModel, servingState } from './custom-service.repo.js';

export interface ServedModel {
  serviceId: string;
  /** The owner: its predictions take turns with other accounts' work on the pool. */
  accountId: number;
  labels: string[];
  model: LinearClassifier;
  /** The `version` of inference answers: feature pipeline and training time. */
  version: string;
  trainedAt: number;
  /** What the model was trained on (the built-in backbone, or an ONNX image embedder). */
  features: FeaturePipeline;
}

/** One image to classify, with what the answer's envelope reports. */
export interface ClassifyInput {
  bytes: Uint8Array;
  topk: number;
  requestId: string;
  downloadMs: number;
  /** `performance.now()` when the request began. */
  startedAt: number;
}

export interface RankedLabel {
  category: string;
  puid: string;
  score: number;
}

/** A stable id per label text (the same label gets the same puid in every service and after retraining). */
export function labelPuid(label: string): string {
  return `custom.${createHash('sha256').update(label, 'utf8').digest('hex').slice(0, 16)}`;
}

/** Labels by descending probability (ties: label order), cut to `topk`; scores rounded to 6 decimals. */
export function rankLabels(labels: string[], probabilities: ArrayLike<number>, topk: number): RankedLabel[] {
  return labels
    .map((label, i) => ({ label, p: probabilities[i] ?? 0, i }))
    .sort((a, b) => b.p - a.p || a.i - b.i)
    .slice(0, Math.max(0, topk))
    .map(({ label, p }) => ({ category: label, puid: labelPuid(label), score: Math.round(p * 1e6) / 1e6 }));
}

/** Longest side of a query image before features: the stored training copies are at most this size too. */
const PREDICT_MAX_SIDE = 1024;

export class ClassifierInference {
  private readonly cache = new Map<string, ServedModel>();

  constructor(
    private readonly deps: {
      pool: pg.Pool;
      inference: InferencePool;
      decoder: ImageDecoderPool;
      /** Priority of the decode (batch decodes in the background). */
      decodePriority?: Priority;
      maxModels?: number;
    },
  ) {}

  /** The model of a running service of the account: 404/2002 when unknown or deleted, 400/9005 when not running. */
  async model(accountId: number, serviceId: string): Promise<ServedModel> {
    const state = await servingState(this.deps.pool, accountId, serviceId);
    if (!state || state.status === 'deleted') throw new ApiError('serviceNotFound', `service ${serviceId} does not exist`);
    if (state.status !== 'running' || !state.trained_at) {
      throw new ApiError('notReady', `service ${serviceId} is ${state.status}; only a running service can classify images`);
    }
    const cached = this.cache.get(serviceId);
    if (cached && cached.trainedAt === state.trained_at.getTime()) return cached;
    const stored = await findModel(this.deps.pool, serviceId);
    if (!stored) throw new ApiError('notReady', `service ${serviceId} has no trained model`);
    const features = await servableFeatures(stored.feature_pipeline, stored.dim);
    if (!features) {
      throw new ApiError('notReady', `service ${serviceId} was trained on features this version of Iris no longer computes (another image embedder); create it again`);
    }
    const classes = stored.labels.length;
    const served: ServedModel = {
      serviceId,
      accountId,
      labels: stored.labels,
      model: assertClassifier({
        dim: stored.dim,
        classes,
        mean: bytesToFloat32(stored.mean, stored.dim),
        scale: bytesToFloat32(stored.scale, stored.dim),
        weights: bytesToFloat32(stored.weights, stored.dim * classes),
        bias: bytesToFloat32(stored.bias, classes),
      }),
      version: `${stored.feature_pipeline}@${Math.floor(stored.trained_at.getTime() / 1000)}`,
      trainedAt: stored.trained_at.getTime(),
      features,
    };
    this.cache.delete(serviceId);
    this.cache.set(serviceId, served);
    const max = this.deps.maxModels ?? 64;
    while (this.cache.size > max) this.cache.delete(this.cache.keys().next().value!);
    return served;
  }

  /** Class probabilities of an image (interactive priority on an interactive pool; batch passes a background view). */
  async predict(served: ServedModel, image: Uint8Array): Promise<ClassifierPrediction> {
    // The one decode path (format probe, pixel limit, time limit); the model thread only sees pixels.
    const rgb = await this.deps.decoder.rgb(image, { maxSide: PREDICT_MAX_SIDE }, this.deps.decodePriority ?? 'interactive', served.accountId);
    return this.deps.inference.run('classifier-predict', { rgb, model: served.model, ...featurePayload(served.features) }, { priority: 'interactive', accountId: served.accountId });
  }

  /** The classify answer (envelope with ranked labels) for one image; image problems in the analysis shape. */
  async classify(served: ServedModel, input: ClassifyInput): Promise<EnvelopeAnswers['classify']> {
    const started = performance.now();
    let prediction;
    try {
      prediction = await this.predict(served, input.bytes);
    } catch (err) {
      if (err instanceof ImageDecodeError) throw analysisError('classify', 'undecodable', `image cannot be decoded: ${err.message}`);
      if (err instanceof InferenceTaskError && err.code === 'image_decode_failed') throw analysisError('classify', 'undecodable', err.message);
      if (err instanceof InferenceTaskError && err.code === 'invalid_feature_input') throw analysisError('classify', 'missing', err.message);
      throw err;
    }
    const analysisMs = performance.now() - started;
    return buildEnvelope(
      'classify',
      { results: rankLabels(served.labels, prediction.probabilities, input.topk) },
      {
        requestId: input.requestId,
        version: served.version,
        imageId: createHash('sha256').update(input.bytes).digest('hex').slice(0, 32),
        timing: { downloadMs: input.downloadMs, analysisMs, totalMs: performance.now() - input.startedAt },
      },
    );
  }
}
