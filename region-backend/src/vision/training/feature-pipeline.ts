/**
 * Which features custom classifiers train on and predict from: the built-in backbone's mid-level blocks
 * (feature-info.ts), or, when the region is configured with an operator's ONNX image embedder
 * (embedder-identity.ts, stage `image-embedder`), that model's vector of the whole picture. The pipeline id is
 * stored with every feature vector and trained model, so a model is always served with the features it was
 * trained on. No model runtime here: the main thread reads it.
 */
import { configuredEmbedder, refOf, type EmbedderRef } from '../embedding/embedder-identity.js';
import { CLASSIFIER_FEATURE_DIM, CLASSIFIER_FEATURE_PIPELINE } from './feature-info.js';

export interface FeaturePipeline {
  pipeline: string;
  dim: number;
  /** The ONNX embedder that computes the features; null for the built-in backbone. */
  embedder: EmbedderRef | null;
}

export const BUILTIN_FEATURES: FeaturePipeline = { pipeline: CLASSIFIER_FEATURE_PIPELINE, dim: CLASSIFIER_FEATURE_DIM, embedder: null };

/** The features new training runs use now. */
export async function configuredFeatures(): Promise<FeaturePipeline> {
  const embedder = await configuredEmbedder();
  if (!embedder.manifestPath) return BUILTIN_FEATURES;
  return { pipeline: `${embedder.id}/classifier-whole`, dim: embedder.dim, embedder: refOf(embedder) };
}

/** The features a stored model was trained on, when this process can still compute them; else null. */
export async function servableFeatures(pipeline: string, dim: number): Promise<FeaturePipeline | null> {
  if (pipeline === BUILTIN_FEATURES.pipeline && dim === BUILTIN_FEATURES.dim) return BUILTIN_FEATURES;
  const configured = await configuredFeatures();
  return configured.pipeline === pipeline && configured.dim === dim ? configured : null;
}

/** The task payload field that selects the features (nothing for the built-in backbone). */
export function featurePayload(features: FeaturePipeline): { embedder?: EmbedderRef } {
  return features.embedder ? { embedder: features.embedder } : {};
}
