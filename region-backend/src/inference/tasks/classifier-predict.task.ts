import { extractFeatures, type FeatureRequest } from '../../vision/training/feature-extractor.js';
import { assertClassifier, predictImage, type LinearClassifier } from '../../vision/training/linear-classifier.js';

export interface ClassifierPredictPayload extends FeatureRequest {
  model: LinearClassifier;
}

export interface ClassifierPrediction {
  /** One probability per class of the model, summing to 1. */
  probabilities: Float64Array;
  width: number;
  height: number;
}

/** `classifier-predict`: image + trained classifier → class probabilities. */
export default async function classifierPredictTask(payload: ClassifierPredictPayload): Promise<ClassifierPrediction> {
  const { model, ...image } = payload;
  assertClassifier(model);
  const { features, width, height } = await extractFeatures(image);
  return { probabilities: predictImage(model, features), width, height };
}
