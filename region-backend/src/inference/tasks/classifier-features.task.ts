import { extractFeatures, type FeatureRequest, type FeatureResult } from '../../training/feature-extractor.js';

/**
 * `classifier-features`: `{image: Uint8Array} | {rgb: {data, width, height}}` → `{features: Float32Array
 * (CLASSIFIER_FEATURE_DIM), width, height}`: what custom classifiers train on and predict from.
 */
export default function classifierFeaturesTask(payload: unknown): Promise<FeatureResult> {
  return extractFeatures((payload ?? {}) as FeatureRequest);
}
