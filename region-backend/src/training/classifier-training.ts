/**
 * The production training step, shared by training runs and the evaluation: labelled feature rows in,
 * trained softmax classifier out (fitted in the `classifier-train` inference task, off the event loop).
 */
import type { InferencePool, Priority } from '../inference/inference-pool.js';
import type { TrainingData, TrainOptions, TrainResult } from './softmax-trainer.js';

export interface LabelledFeatures {
  label: string;
  features: Float32Array;
}

export interface TrainedClassifier {
  /** Class order of the model's rows: the distinct labels, sorted by code unit. */
  labels: string[];
  result: TrainResult;
}

/** One row per image; classes numbered in sorted label order, so the same rows always give the same data. */
export function assembleTrainingData(rows: LabelledFeatures[]): { data: TrainingData; labels: string[] } {
  if (!rows.length) throw new RangeError('no training rows');
  const dim = rows[0]!.features.length;
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  const index = new Map(labels.map((l, i) => [l, i]));
  const features = new Float32Array(rows.length * dim);
  const classes = new Int32Array(rows.length);
  rows.forEach((row, i) => {
    if (row.features.length !== dim) throw new RangeError(`row ${i} has ${row.features.length} features, expected ${dim}`);
    features.set(row.features, i * dim);
    classes[i] = index.get(row.label)!;
  });
  const groups = Int32Array.from(rows.keys());
  return { data: { features, dim, classes: labels.length, labels: classes, groups }, labels };
}

export async function trainClassifier(
  pool: InferencePool,
  rows: LabelledFeatures[],
  options: { seed: number; priority?: Priority; train?: Partial<Omit<TrainOptions, 'onEpoch' | 'seed'>> },
): Promise<TrainedClassifier> {
  const { data, labels } = assembleTrainingData(rows);
  const result = await pool.run<TrainResult>(
    'classifier-train',
    { data, options: { ...options.train, seed: options.seed } },
    { priority: options.priority ?? 'background', transfer: [data.features.buffer as ArrayBuffer, data.labels.buffer as ArrayBuffer, data.groups.buffer as ArrayBuffer] },
  );
  return { labels, result };
}
