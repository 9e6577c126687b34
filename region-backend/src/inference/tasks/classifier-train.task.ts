import { trainSoftmax, type TrainingData, type TrainOptions, type TrainResult } from '../../training/softmax-trainer.js';

export interface ClassifierTrainPayload {
  data: TrainingData;
  options?: Partial<Omit<TrainOptions, 'onEpoch'>>;
}

/** `classifier-train`: fits a softmax classifier on feature rows (softmax-trainer.ts) off the event loop. */
export default function classifierTrainTask(payload: unknown): TrainResult {
  const { data, options } = (payload ?? {}) as ClassifierTrainPayload;
  if (!data?.features) throw new TypeError('classifier-train needs data.features');
  return trainSoftmax(data, { ...options, onEpoch: undefined });
}
