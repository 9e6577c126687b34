import {
  fitCandidate,
  refitAll,
  trainSoftmax,
  type Candidate,
  type TrainingData,
  type TrainOptions,
  type TrainResult,
} from '../../vision/training/softmax-trainer.js';
import type { LinearClassifier } from '../../vision/training/linear-classifier.js';

export type ClassifierTrainStep = { kind: 'all' } | { kind: 'candidate'; l2: number } | { kind: 'refit'; l2: number; epochs: number };

export interface ClassifierTrainPayload {
  data: TrainingData;
  options?: Partial<TrainOptions>;
  /** One step of the training (so the L2 candidates can run on several threads at once), or all of it. */
  step?: ClassifierTrainStep;
}

/** `classifier-train`: fits softmax classifiers on feature rows (softmax-trainer.ts) off the event loop. */
export default function classifierTrainTask(payload: ClassifierTrainPayload): TrainResult | Candidate | LinearClassifier {
  const { data, options = {}, step = { kind: 'all' } } = payload;
  if (!data?.features) throw new TypeError('classifier-train needs data.features');
  switch (step.kind) {
    case 'candidate':
      return fitCandidate(data, options, step.l2);
    case 'refit':
      return refitAll(data, options, step.l2, step.epochs);
    default:
      return trainSoftmax(data, options);
  }
}
