/**
 * The production training step, shared by training runs and the evaluation: labelled feature rows in,
 * trained softmax classifier out. The candidates of model selection (one per L2 strength) are fitted as
 * separate `classifier-train` tasks, so they run on several inference threads at once; the features sit in
 * shared memory, so no thread copies them. The result is the same as trainSoftmax in one thread.
 */
import type { InferencePool, Priority } from '../../inference/inference-pool.js';
import type { ClassifierTrainPayload } from '../../inference/tasks/classifier-train.task.js';
import type { LinearClassifier } from '../../vision/training/linear-classifier.js';
import { candidateGrid, chooseCandidate, refits, summarise, type Candidate, type TrainingData, type TrainOptions, type TrainResult } from '../../vision/training/softmax-trainer.js';

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
export function assembleTrainingData(rows: LabelledFeatures[], options: { shared?: boolean } = {}): { data: TrainingData; labels: string[] } {
  if (!rows.length) throw new RangeError('no training rows');
  const dim = rows[0]!.features.length;
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  const index = new Map(labels.map((l, i) => [l, i]));
  const length = rows.length * dim;
  const features = options.shared ? new Float32Array(new SharedArrayBuffer(length * 4)) : new Float32Array(length);
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
  options: { seed: number; priority?: Priority; train?: Partial<Omit<TrainOptions, 'seed'>> },
): Promise<TrainedClassifier> {
  const { data, labels } = assembleTrainingData(rows, { shared: true });
  const train: Partial<TrainOptions> = { ...options.train, seed: options.seed };
  // The step decides which member of the task's result union comes back.
  const run = <T extends Candidate | LinearClassifier>(step: ClassifierTrainPayload['step']) =>
    pool.run('classifier-train', { data, options: train, step } satisfies ClassifierTrainPayload, { priority: options.priority ?? 'background' }) as Promise<T>;
  const candidates = await Promise.all(candidateGrid(data, train).map((l2) => run<Candidate>({ kind: 'candidate', l2 })));
  const chosen = chooseCandidate(candidates);
  const model = refits(data, train) ? await run<LinearClassifier>({ kind: 'refit', l2: chosen.l2, epochs: chosen.epochs }) : chosen.model;
  return { labels, result: summarise(data, train, candidates, model) };
}
