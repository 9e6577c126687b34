/**
 * Multinomial logistic regression (a softmax layer) on image features, in plain TypeScript:
 *
 * - held-out validation split by image, stratified by label (stratified-split.ts);
 * - per-dimension standardisation fitted on the rows it trains on;
 * - class weights n / (k · n_c), so a label with fewer images is not drowned out;
 * - L2 regularisation, its strength picked from a small grid by validation loss;
 * - mini-batch Adam with early stopping on validation loss (the best epoch's weights are kept);
 * - optionally a final refit on every image for the chosen number of epochs.
 *
 * Deterministic for a given seed: shuffles come from a seeded PRNG and every sum runs in a fixed order.
 * CPU-heavy: call it inside a worker thread (the `classifier-train` inference task), never on the event loop.
 */
import { softmaxInPlace, type LinearClassifier } from './linear-classifier.js';
import { seededRandom, shuffleInPlace, type Random } from '../util/seeded-random.js';
import { stratifiedSplit } from './stratified-split.js';

export interface TrainingData {
  /** rows × dim feature values, row-major. */
  features: Float32Array;
  dim: number;
  classes: number;
  /** Class index of each row. */
  labels: Int32Array;
  /** Source image of each row: rows of one image (its augmented views) share a group and a label. */
  groups: Int32Array;
  /** 1 for rows of the image as given (validation is scored on these only); default: every row. */
  primary?: Uint8Array;
}

export interface TrainOptions {
  seed: number;
  /** Fraction of each label's images held out for validation. */
  validationFraction: number;
  /** L2 strengths tried; the one with the lowest validation loss wins. */
  l2Grid: number[];
  maxEpochs: number;
  /** Epochs without a better validation loss before stopping. */
  patience: number;
  /** Relative decrease of the validation loss that counts as better (smaller gains do not reset patience). */
  minImprovement: number;
  batchSize: number;
  learningRate: number;
  /** Standardise each feature dimension (else only centre it). */
  standardise: boolean;
  /** Train again on every image (for the best epoch count) after model selection. */
  refit: boolean;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  seed: 1,
  validationFraction: 0.2,
  l2Grid: [0.003, 0.01, 0.03, 0.1],
  maxEpochs: 150,
  patience: 10,
  minImprovement: 1e-3,
  batchSize: 32,
  learningRate: 0.001,
  standardise: true,
  refit: true,
};

export interface LabelMetrics {
  trainImages: number;
  validationImages: number;
  validationCorrect: number;
}

export interface TrainResult {
  model: LinearClassifier;
  /** Accuracy on the held-out images of the selected model (before any refit); null without validation images. */
  validationAccuracy: number | null;
  /**
   * The selected model's predictions on the held-out rows that validationAccuracy scores: confusion[t][p] counts
   * rows of class t predicted as class p (so the diagonal over the total is validationAccuracy); null without
   * validation images.
   */
  confusion: number[][] | null;
  validationLoss: number | null;
  perClass: LabelMetrics[];
  l2: number;
  /** Epochs of the selected model (and of the refit). */
  epochs: number;
  trainImages: number;
  validationImages: number;
  /** Validation loss per L2 strength tried (model selection trace). */
  grid: { l2: number; loss: number; accuracy: number; epochs: number }[];
}

interface Normalisation {
  mean: Float32Array;
  scale: Float32Array;
}

function fitNormalisation(data: TrainingData, rows: number[], standardise: boolean): Normalisation {
  const { dim, features } = data;
  const sum = new Float64Array(dim);
  const sq = new Float64Array(dim);
  for (const r of rows) {
    const base = r * dim;
    for (let j = 0; j < dim; j++) {
      const v = features[base + j]!;
      sum[j] = sum[j]! + v;
      sq[j] = sq[j]! + v * v;
    }
  }
  const n = Math.max(1, rows.length);
  const mean = new Float32Array(dim);
  const scale = new Float32Array(dim).fill(1);
  let meanStd = 0;
  const std = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    const m = sum[j]! / n;
    mean[j] = m;
    std[j] = Math.sqrt(Math.max(0, sq[j]! / n - m * m));
    meanStd += std[j]! / dim;
  }
  if (standardise) {
    // Dimensions that barely vary (dead activations) are not blown up to unit variance.
    const floor = Math.max(1e-6, 0.1 * meanStd);
    for (let j = 0; j < dim; j++) scale[j] = 1 / Math.max(std[j]!, floor);
  } else {
    const s = 1 / Math.max(1e-6, meanStd);
    scale.fill(s);
  }
  return { mean, scale };
}

function normalisedRows(data: TrainingData, norm: Normalisation): Float32Array {
  const { dim, features } = data;
  const rows = features.length / dim;
  // Float32 halves the memory the epochs stream through; sums still run in doubles.
  const out = new Float32Array(features.length);
  for (let r = 0; r < rows; r++) {
    const base = r * dim;
    for (let j = 0; j < dim; j++) out[base + j] = (features[base + j]! - norm.mean[j]!) * norm.scale[j]!;
  }
  return out;
}

interface FitState {
  w: Float64Array;
  b: Float64Array;
}

interface FitInput {
  x: Float32Array;
  dim: number;
  classes: number;
  labels: Int32Array;
  trainRows: number[];
  classWeight: Float64Array;
  validationRows: number[];
  l2: number;
  /** Fixed epoch count (refit) instead of early stopping. */
  epochs?: number;
}

interface FitOutcome {
  state: FitState;
  epochs: number;
  loss: number;
  accuracy: number;
  correct: Int32Array;
  /** classes × classes, row-major: true class × predicted class. */
  confusion: Int32Array;
}

function logitsInto(z: Float64Array, state: FitState, x: Float32Array, row: number, dim: number): void {
  // Locals keep V8's hot loop free of property loads.
  const w = state.w;
  const b = state.b;
  const base = row * dim;
  for (let c = 0; c < z.length; c++) {
    let s = b[c]!;
    const wr = c * dim;
    for (let j = 0; j < dim; j++) s += w[wr + j]! * x[base + j]!;
    z[c] = s;
  }
}

function evaluate(input: FitInput, state: FitState): { loss: number; accuracy: number; correct: Int32Array; confusion: Int32Array } {
  const z = new Float64Array(input.classes);
  const correct = new Int32Array(input.classes);
  const confusion = new Int32Array(input.classes * input.classes);
  let loss = 0;
  let right = 0;
  for (const r of input.validationRows) {
    logitsInto(z, state, input.x, r, input.dim);
    softmaxInPlace(z);
    const y = input.labels[r]!;
    loss -= Math.log(Math.max(1e-12, z[y]!));
    let best = 0;
    for (let c = 1; c < z.length; c++) if (z[c]! > z[best]!) best = c;
    const cell = y * input.classes + best;
    confusion[cell] = confusion[cell]! + 1;
    if (best === y) {
      right++;
      correct[y] = correct[y]! + 1;
    }
  }
  const n = Math.max(1, input.validationRows.length);
  return { loss: loss / n, accuracy: right / n, correct, confusion };
}

const BETA1 = 0.9;
const BETA2 = 0.999;
const EPS = 1e-8;

function fit(input: FitInput, options: TrainOptions, random: Random): FitOutcome {
  const { dim, classes, x, labels, classWeight, l2 } = input;
  const size = dim * classes;
  const state: FitState = { w: new Float64Array(size), b: new Float64Array(classes) };
  const m = { w: new Float64Array(size), b: new Float64Array(classes) };
  const v = { w: new Float64Array(size), b: new Float64Array(classes) };
  const gw = new Float64Array(size);
  const gb = new Float64Array(classes);
  const z = new Float64Array(classes);
  const order = input.trainRows.slice();
  const planned = input.epochs ?? options.maxEpochs;
  const early = input.epochs === undefined && input.validationRows.length > 0;
  let best: FitOutcome | null = null;
  let sinceBest = 0;
  let step = 0;

  for (let epoch = 1; epoch <= planned; epoch++) {
    shuffleInPlace(order, random);
    for (let start = 0; start < order.length; start += options.batchSize) {
      const end = Math.min(order.length, start + options.batchSize);
      gw.fill(0);
      gb.fill(0);
      let weightSum = 0;
      for (let i = start; i < end; i++) {
        const r = order[i]!;
        const y = labels[r]!;
        const cw = classWeight[y]!;
        weightSum += cw;
        logitsInto(z, state, x, r, dim);
        softmaxInPlace(z);
        const base = r * dim;
        for (let c = 0; c < classes; c++) {
          const g = (z[c]! - (c === y ? 1 : 0)) * cw;
          if (g === 0) continue;
          gb[c] = gb[c]! + g;
          const wr = c * dim;
          for (let j = 0; j < dim; j++) gw[wr + j] = gw[wr + j]! + g * x[base + j]!;
        }
      }
      const inv = 1 / Math.max(1e-12, weightSum);
      step++;
      const lr = (options.learningRate * Math.sqrt(1 - BETA2 ** step)) / (1 - BETA1 ** step);
      const w = state.w;
      const mw = m.w;
      const vw = v.w;
      for (let k = 0; k < size; k++) {
        const g = gw[k]! * inv + l2 * w[k]!;
        const mk = BETA1 * mw[k]! + (1 - BETA1) * g;
        const vk = BETA2 * vw[k]! + (1 - BETA2) * g * g;
        mw[k] = mk;
        vw[k] = vk;
        w[k] = w[k]! - (lr * mk) / (Math.sqrt(vk) + EPS);
      }
      for (let c = 0; c < classes; c++) {
        const g = gb[c]! * inv;
        m.b[c] = BETA1 * m.b[c]! + (1 - BETA1) * g;
        v.b[c] = BETA2 * v.b[c]! + (1 - BETA2) * g * g;
        state.b[c] = state.b[c]! - (lr * m.b[c]!) / (Math.sqrt(v.b[c]!) + EPS);
      }
    }
    if (!early) continue;
    const scored = evaluate(input, state);
    // Tiny gains do not count: the loss of an easy problem creeps down for hundreds of epochs.
    if (!best || scored.loss < best.loss * (1 - options.minImprovement)) {
      best = { state: { w: state.w.slice(), b: state.b.slice() }, epochs: epoch, ...scored };
      sinceBest = 0;
    } else if (++sinceBest >= options.patience) {
      break;
    }
  }
  if (best) return best;
  const scored = input.validationRows.length
    ? evaluate(input, state)
    : { loss: NaN, accuracy: NaN, correct: new Int32Array(classes), confusion: new Int32Array(classes * classes) };
  return { state, epochs: planned, ...scored };
}

function classWeights(labels: Int32Array, rows: number[], classes: number): Float64Array {
  const counts = new Float64Array(classes);
  for (const r of rows) counts[labels[r]!] = counts[labels[r]!]! + 1;
  const present = counts.filter((c) => c > 0).length || 1;
  const weights = new Float64Array(classes);
  for (let c = 0; c < classes; c++) weights[c] = counts[c]! > 0 ? rows.length / (present * counts[c]!) : 0;
  return weights;
}

function checkData(data: TrainingData, checkValues: boolean): number {
  const { dim, classes, features, labels, groups } = data;
  if (!Number.isInteger(dim) || dim <= 0) throw new RangeError('dim must be a positive integer');
  if (!Number.isInteger(classes) || classes < 2) throw new RangeError('at least two classes are needed');
  if (features.length % dim !== 0) throw new RangeError('features length is not a multiple of dim');
  const rows = features.length / dim;
  if (labels.length !== rows || groups.length !== rows) throw new RangeError('labels and groups need one entry per row');
  if (data.primary && data.primary.length !== rows) throw new RangeError('primary needs one entry per row');
  for (let r = 0; r < rows; r++) {
    const y = labels[r]!;
    if (!Number.isInteger(y) || y < 0 || y >= classes) throw new RangeError(`row ${r} has label ${y} outside 0..${classes - 1}`);
  }
  if (checkValues) for (let i = 0; i < features.length; i++) if (!Number.isFinite(features[i]!)) throw new RangeError(`feature value ${i} is not finite`);
  return rows;
}

interface Plan {
  dim: number;
  classes: number;
  labels: Int32Array;
  groupLabel: Int32Array;
  rowsOfGroup: number[][];
  trainGroups: number[];
  validationGroups: number[];
  trainRows: number[];
  validationRows: number[];
}

/**
 * Checks the data and splits its images (the same split for the same data and seed, in every thread).
 * `checkValues` scans every feature value: fitting does it; the bookkeeping on the calling thread does not.
 */
function plan(data: TrainingData, options: TrainOptions, checkValues = true): Plan {
  const rows = checkData(data, checkValues);
  const { dim, classes, labels, groups } = data;
  // One label per image (group); images are numbered densely from 0.
  const groupCount = groups.reduce((max, g) => Math.max(max, g + 1), 0);
  const groupLabel = new Int32Array(groupCount).fill(-1);
  const rowsOfGroup: number[][] = Array.from({ length: groupCount }, () => []);
  for (let r = 0; r < rows; r++) {
    const g = groups[r]!;
    if (groupLabel[g]! >= 0 && groupLabel[g] !== labels[r]) throw new RangeError(`image ${g} has rows with different labels`);
    groupLabel[g] = labels[r]!;
    rowsOfGroup[g]!.push(r);
  }
  const split = stratifiedSplit(groupLabel, options.validationFraction, options.seed);
  const usable = (g: number) => groupLabel[g]! >= 0;
  const trainGroups = split.train.filter(usable);
  const validationGroups = split.validation.filter(usable);
  return {
    dim,
    classes,
    labels,
    groupLabel,
    rowsOfGroup,
    trainGroups,
    validationGroups,
    trainRows: trainGroups.flatMap((g) => rowsOfGroup[g]!),
    validationRows: validationGroups.flatMap((g) => rowsOfGroup[g]!.filter((r) => !data.primary || data.primary[r] === 1)),
  };
}

/** One model-selection fit: a model trained on the training images at one L2 strength, scored on the held-out ones. */
export interface Candidate {
  l2: number;
  loss: number;
  accuracy: number;
  epochs: number;
  /** Held-out images classified right, per class. */
  correct: number[];
  /** Held-out images per true class (row) and predicted class (column), row-major. */
  confusion: number[];
  model: LinearClassifier;
}

const withDefaults = (partial: Partial<TrainOptions>): TrainOptions => ({ ...DEFAULT_TRAIN_OPTIONS, ...partial });

/** The L2 strengths model selection tries (only the middle one when no image can be held out). */
export function candidateGrid(data: TrainingData, partial: Partial<TrainOptions> = {}): number[] {
  const options = withDefaults(partial);
  const p = plan(data, options, false);
  return p.validationRows.length ? options.l2Grid : [options.l2Grid[Math.floor(options.l2Grid.length / 2)] ?? 1e-3];
}

export function fitCandidate(data: TrainingData, partial: Partial<TrainOptions>, l2: number): Candidate {
  const options = withDefaults(partial);
  const p = plan(data, options);
  const norm = fitNormalisation(data, p.trainRows, options.standardise);
  const outcome = fit(
    { x: normalisedRows(data, norm), dim: p.dim, classes: p.classes, labels: p.labels, trainRows: p.trainRows, classWeight: classWeights(p.labels, p.trainRows, p.classes), validationRows: p.validationRows, l2 },
    options,
    seededRandom(options.seed ^ 0x9e3779b9),
  );
  return { l2, loss: outcome.loss, accuracy: outcome.accuracy, epochs: outcome.epochs, correct: Array.from(outcome.correct), confusion: Array.from(outcome.confusion), model: toModel(norm, outcome.state, p.dim, p.classes) };
}

/** The lowest validation loss (the first of equals, in grid order). */
export function chooseCandidate(candidates: Candidate[]): Candidate {
  if (!candidates.length) throw new RangeError('no candidates');
  return candidates.reduce((best, c) => (c.loss < best.loss ? c : best));
}

/** Trains on every image (training and held-out) at the chosen strength for the chosen number of epochs. */
export function refitAll(data: TrainingData, partial: Partial<TrainOptions>, l2: number, epochs: number): LinearClassifier {
  const options = withDefaults(partial);
  const p = plan(data, options);
  const allRows = [...p.trainRows, ...p.validationGroups.flatMap((g) => p.rowsOfGroup[g]!)].sort((a, b) => a - b);
  const norm = fitNormalisation(data, allRows, options.standardise);
  const outcome = fit(
    { x: normalisedRows(data, norm), dim: p.dim, classes: p.classes, labels: p.labels, trainRows: allRows, classWeight: classWeights(p.labels, allRows, p.classes), validationRows: [], l2, epochs },
    options,
    seededRandom(options.seed ^ 0x85ebca6b),
  );
  return toModel(norm, outcome.state, p.dim, p.classes);
}

/** Whether the final model is a refit on every image (else the chosen candidate's model). */
export function refits(data: TrainingData, partial: Partial<TrainOptions> = {}): boolean {
  const options = withDefaults(partial);
  return options.refit && plan(data, options, false).validationRows.length > 0;
}

/** The training report of a model selection (candidates) and the final model. */
export function summarise(data: TrainingData, partial: Partial<TrainOptions>, candidates: Candidate[], model: LinearClassifier): TrainResult {
  const p = plan(data, withDefaults(partial), false);
  const chosen = chooseCandidate(candidates);
  const perClass: LabelMetrics[] = Array.from({ length: p.classes }, (_, c) => ({ trainImages: 0, validationImages: 0, validationCorrect: chosen.correct[c] ?? 0 }));
  for (const g of p.trainGroups) perClass[p.groupLabel[g]!]!.trainImages++;
  for (const g of p.validationGroups) perClass[p.groupLabel[g]!]!.validationImages++;
  const hasValidation = p.validationRows.length > 0;
  return {
    model,
    validationAccuracy: hasValidation ? chosen.accuracy : null,
    confusion: hasValidation ? Array.from({ length: p.classes }, (_, t) => chosen.confusion.slice(t * p.classes, (t + 1) * p.classes)) : null,
    validationLoss: hasValidation ? chosen.loss : null,
    perClass,
    l2: chosen.l2,
    epochs: chosen.epochs,
    trainImages: p.trainGroups.length,
    validationImages: p.validationGroups.length,
    grid: candidates.map((c) => ({ l2: c.l2, loss: c.loss, accuracy: c.accuracy, epochs: c.epochs })),
  };
}

/** The whole training in one thread: model selection over the L2 grid, then the refit. */
export function trainSoftmax(data: TrainingData, partial: Partial<TrainOptions> = {}): TrainResult {
  const candidates = candidateGrid(data, partial).map((l2) => fitCandidate(data, partial, l2));
  const chosen = chooseCandidate(candidates);
  const model = refits(data, partial) ? refitAll(data, partial, chosen.l2, chosen.epochs) : chosen.model;
  return summarise(data, partial, candidates, model);
}

function toModel(norm: Normalisation, state: FitState, dim: number, classes: number): LinearClassifier {
  return { dim, classes, mean: norm.mean, scale: norm.scale, weights: Float32Array.from(state.w), bias: Float32Array.from(state.b) };
}
