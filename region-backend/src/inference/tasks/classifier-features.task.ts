import { extractFeatures, extractFeaturesMany, type FeatureRequest, type FeatureResult } from '../../vision/training/feature-extractor.js';
import { batchItems } from './batch-items.js';

/**
 * `classifier-features`: `{image: Uint8Array} | {rgb: {data, width, height}}` → `{features: Float32Array
 * (CLASSIFIER_FEATURE_DIM), width, height}`: what custom classifiers train on and predict from.
 */
export default function classifierFeaturesTask(payload: FeatureRequest): Promise<FeatureResult> {
  return extractFeatures(payload);
}

/** Background batches (training runs): one backbone batch for all images. */
export async function batch(payloads: FeatureRequest[]) {
  return batchItems(await extractFeaturesMany(payloads));
}
