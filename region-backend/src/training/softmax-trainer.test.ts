import { describe, expect, it } from 'vitest';
import { InferencePool } from '../inference/inference-pool.js';
import { assembleTrainingData, trainClassifier } from './classifier-training.js';
import { float32ToBytes, bytesToFloat32 } from './float-bytes.js';
import { classProbabilities, predictImage } from './linear-classifier.js';
import { seededRandom } from '../util/seeded-random.js';
import { trainSoftmax, type TrainingData } from './softmax-trainer.js';
import { stratifiedSplit } from './stratified-split.js';

/** Gaussian blobs: `perClass[c]` points around a random centre per class, `noise` standard deviation. */
function blobs(perClass: number[], dim: number, noise: number, seed: number): { rows: { label: string; features: Float32Array }[]; centres: Float32Array[] } {
  const random = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const centres = perClass.map(() => Float32Array.from({ length: dim }, () => gauss()));
  const rows = perClass.flatMap((n, c) =>
    Array.from({ length: n }, () => ({ label: `class-${c}`, features: Float32Array.from(centres[c]!, (v) => v + noise * gauss()) })),
  );
  return { rows, centres };
}

const argmax = (p: ArrayLike<number>) => Array.from(p).reduce((best, v, i, all) => (v > all[best]! ? i : best), 0);

describe('stratifiedSplit', () => {
  it('holds out the same share of every label, by image, reproducibly', () => {
    const labels = [...Array(50).fill(0), ...Array(20).fill(1), ...Array(3).fill(2), 3];
    const split = stratifiedSplit(labels, 0.2, 42);
    const held = (label: number) => split.validation.filter((g) => labels[g] === label).length;
    expect([held(0), held(1), held(2), held(3)]).toEqual([10, 4, 1, 0]);
    expect(new Set([...split.train, ...split.validation]).size).toBe(labels.length);
    expect(stratifiedSplit(labels, 0.2, 42)).toEqual(split);
    expect(stratifiedSplit(labels, 0.2, 43).validation).not.toEqual(split.validation);
  });
});

describe('trainSoftmax', () => {
  it('separates well-separated classes and reports held-out accuracy', () => {
    const { rows, centres } = blobs([60, 60, 60], 16, 0.3, 1);
    const { data, labels } = assembleTrainingData(rows);
    const result = trainSoftmax(data, { seed: 5 });
    expect(labels).toEqual(['class-0', 'class-1', 'class-2']);
    expect(result.validationAccuracy).toBe(1);
    expect(result.trainImages + result.validationImages).toBe(180);
    expect(result.validationImages).toBe(36);
    expect(result.perClass.map((c) => c.validationImages)).toEqual([12, 12, 12]);
    expect(result.grid.length).toBe(4);
    for (const [c, centre] of centres.entries()) {
      const p = classProbabilities(result.model, centre);
      expect(argmax(p)).toBe(c);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    }
  });

  it('is deterministic for a seed and changes with it', () => {
    const { rows } = blobs([40, 40], 8, 1.2, 2);
    const a = trainSoftmax(assembleTrainingData(rows).data, { seed: 9 });
    const b = trainSoftmax(assembleTrainingData(rows).data, { seed: 9 });
    const c = trainSoftmax(assembleTrainingData(rows).data, { seed: 10 });
    expect(Buffer.compare(float32ToBytes(a.model.weights), float32ToBytes(b.model.weights))).toBe(0);
    expect(a.validationAccuracy).toBe(b.validationAccuracy);
    expect(Buffer.compare(float32ToBytes(a.model.weights), float32ToBytes(c.model.weights))).not.toBe(0);
  });

  it('weights classes so a small class is still recognised', () => {
    // Overlapping classes, 10:1 imbalance: unweighted training would favour the big class near the middle.
    const { rows, centres } = blobs([300, 30], 4, 1.0, 3);
    const result = trainSoftmax(assembleTrainingData(rows).data, { seed: 1, refit: false });
    const mid = Float32Array.from(centres[0]!, (v, i) => (v + centres[1]![i]!) / 2);
    const p = classProbabilities(result.model, mid);
    expect(p[1]).toBeGreaterThan(0.25);
    expect(argmax(classProbabilities(result.model, centres[1]!))).toBe(1);
  });

  it('stops early on validation loss when the data is noisy', () => {
    // Far more dimensions than images and no regularisation: the fit memorises noise, validation loss turns up.
    const { rows } = blobs([30, 30], 300, 15, 4);
    const result = trainSoftmax(assembleTrainingData(rows).data, { seed: 1, maxEpochs: 400, patience: 5, l2Grid: [0] });
    expect(result.epochs).toBeLessThan(200);
    expect(result.validationLoss).not.toBeNull();
  });

  it('keeps the augmented views of an image on one side of the split and scores only primary views', () => {
    const { rows } = blobs([20, 20], 6, 0.2, 5);
    const base = assembleTrainingData(rows).data;
    const dim = base.dim;
    const n = rows.length;
    const features = new Float32Array(n * 2 * dim);
    features.set(base.features, 0);
    features.set(base.features.map((v) => v + 0.01), n * dim);
    const data: TrainingData = {
      features,
      dim,
      classes: 2,
      labels: Int32Array.from([...base.labels, ...base.labels]),
      groups: Int32Array.from([...base.groups, ...base.groups]),
      primary: Uint8Array.from({ length: 2 * n }, (_, i) => (i < n ? 1 : 0)),
    };
    const result = trainSoftmax(data, { seed: 3 });
    expect(result.trainImages + result.validationImages).toBe(n);
    expect(result.validationAccuracy).toBe(1);
  });

  it('counts the selected model’s held-out predictions in a confusion matrix that agrees with the validation accuracy', () => {
    // Overlapping classes, so the matrix has mistakes off its diagonal.
    const { rows } = blobs([60, 45, 30], 6, 1.6, 12);
    const { data } = assembleTrainingData(rows);
    const result = trainSoftmax(data, { seed: 4, refit: false });
    const confusion = result.confusion!;
    expect(confusion.map((r) => r.length)).toEqual([3, 3, 3]);
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    expect(confusion.map(sum)).toEqual(result.perClass.map((c) => c.validationImages));
    expect(sum(confusion.map(sum))).toBe(result.validationImages);
    expect(confusion.map((r, t) => r[t])).toEqual(result.perClass.map((c) => c.validationCorrect));
    expect(sum(confusion.map((r, t) => r[t]!)) / result.validationImages).toBe(result.validationAccuracy);
    expect(result.validationAccuracy).toBeLessThan(1);
    // Without a refit the final model is the selected one: predicting the held-out images again gives the same matrix.
    const again = confusion.map((r) => r.map(() => 0));
    for (const g of stratifiedSplit(data.labels, 0.2, 4).validation) {
      const predicted = argmax(classProbabilities(result.model, data.features, g * data.dim));
      again[data.labels[g]!]![predicted]!++;
    }
    expect(again).toEqual(confusion);
  });

  it('has no confusion matrix without held-out images', () => {
    const result = trainSoftmax(assembleTrainingData(blobs([1, 1], 3, 0.1, 13).rows).data, { seed: 1 });
    expect(result.validationImages).toBe(0);
    expect(result.validationAccuracy).toBeNull();
    expect(result.confusion).toBeNull();
  });

  it('refuses inconsistent input', () => {
    const ok = assembleTrainingData(blobs([3, 3], 2, 1, 6).rows).data;
    expect(() => trainSoftmax({ ...ok, classes: 1 })).toThrow(/two classes/);
    expect(() => trainSoftmax({ ...ok, labels: Int32Array.from(ok.labels, () => 7) })).toThrow(/outside/);
    expect(() => trainSoftmax({ ...ok, features: ok.features.map((v, i) => (i === 3 ? NaN : v)) })).toThrow(/not finite/);
    expect(() => trainSoftmax({ ...ok, groups: Int32Array.from(ok.groups, () => 0) })).toThrow(/different labels/);
  });
});

describe('predictImage and storage form', () => {
  it('averages views into probabilities that sum to 1, and survives a bytes round trip', () => {
    const { rows } = blobs([30, 30, 30], 5, 0.5, 7);
    const { model } = trainSoftmax(assembleTrainingData(rows).data, { seed: 2 });
    const two = new Float32Array([...rows[0]!.features, ...rows[40]!.features]);
    const p = predictImage(model, two, 2);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(() => predictImage(model, two, 1)).toThrow(RangeError);
    const back = bytesToFloat32(float32ToBytes(model.weights), model.weights.length);
    expect(Array.from(back)).toEqual(Array.from(model.weights));
    expect(() => bytesToFloat32(Buffer.alloc(6))).toThrow(RangeError);
  });
});

describe('trainClassifier', () => {
  it('fits the L2 candidates on worker threads and gives exactly the single-thread result', async () => {
    const { rows } = blobs([40, 40, 40], 12, 1.5, 8);
    const pool = new InferencePool(2);
    try {
      const parallel = await trainClassifier(pool, rows, { seed: 11 });
      const single = trainSoftmax(assembleTrainingData(rows).data, { seed: 11 });
      expect(parallel.labels).toEqual(['class-0', 'class-1', 'class-2']);
      expect(parallel.result.grid).toEqual(single.grid);
      expect(parallel.result.perClass).toEqual(single.perClass);
      expect(parallel.result.confusion).toEqual(single.confusion);
      expect(Array.from(parallel.result.model.weights)).toEqual(Array.from(single.model.weights));
      expect(Array.from(parallel.result.model.bias)).toEqual(Array.from(single.model.bias));
    } finally {
      await pool.close();
    }
  });
});
