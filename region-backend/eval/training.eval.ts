/**
 * `npm run eval -- training`: custom classifiers on Fashion-MNIST (Debian `dataset-fashion-mnist`) through the
 * production pipeline: images as PNG bytes → `classifier-features` task → the production trainer (trainClassifier:
 * `classifier-train` task, production options and seed) → the prediction the `classifier-predict` task makes.
 * 50 training images per class (train split), 1,000 test images (100 per class, test split).
 *
 * Prints: accuracy and validation accuracy, per-class precision and recall, the confusion matrix, the spread over
 * training seeds, and (IRIS_EVAL_TRAINING_VARIANTS=1) the other feature choices tried, on the same images.
 * IRIS_EVAL_LIMIT=N keeps N training and 2N test images per class (smoke runs).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import os from 'node:os';
import type * as tfTypes from '@tensorflow/tfjs';
import sharp from 'sharp';
import { median, printTable } from '../../scripts/table.js';
import { loadTrainingConfig } from '../src/domains/custom-training/training-config.js';
import { MOBILENET_V2_MID_CONV } from '../src/vision/embedding/backbone.js';
import { l2normalise, rmac } from '../src/vision/embedding/feature-pooling.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { nsfwjsArtifacts, nsfwjsModelFile, relaxInputShape } from '../src/vision/runtime/nsfwjs-models.js';
import { tfjs } from '../src/vision/runtime/tfjs.js';
import { trainClassifier, type LabelledFeatures, type TrainedClassifier } from '../src/domains/custom-training/classifier-training.js';
import { CLASSIFIER_FEATURE_DIM, CLASSIFIER_FEATURE_PIPELINE, CLASSIFIER_FEATURES } from '../src/vision/training/feature-info.js';
import { predictImage } from '../src/vision/training/linear-classifier.js';
import { balancedSample, FASHION_MNIST_CLASSES, fashionMnistRgb, isMissing, loadFashionMnist, type FashionMnist } from './lib/debian-datasets.js';

const LIMIT = Number(process.env.IRIS_EVAL_LIMIT ?? 0);
const TRAIN_PER_CLASS = LIMIT || 50;
const TEST_PER_CLASS = LIMIT ? 2 * LIMIT : 100;
const SHORT = ['T-shirt', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Boot'];

interface Sample {
  label: string;
  rgb: RgbImage;
  png: Buffer;
}

async function samples(set: FashionMnist, indexes: number[]): Promise<Sample[]> {
  return Promise.all(
    indexes.map(async (i) => {
      const rgb = fashionMnistRgb(set, i);
      const png = await sharp(rgb.data, { raw: { width: 28, height: 28, channels: 3 } }).png().toBuffer();
      return { label: FASHION_MNIST_CLASSES[set.labels[i]!]!, rgb, png };
    }),
  );
}

async function productionFeatures(pool: InferencePool, items: Sample[]): Promise<Float32Array[]> {
  return Promise.all(items.map(async (s) => (await pool.run('classifier-features', { image: s.png }, { priority: 'background' })).features));
}

interface Scored {
  accuracy: number;
  predicted: string[];
}

function score(trained: TrainedClassifier, features: Float32Array[], truth: string[]): Scored {
  const predicted = features.map((f) => {
    const p = predictImage(trained.result.model, f);
    let best = 0;
    for (let c = 1; c < p.length; c++) if (p[c]! > p[best]!) best = c;
    return trained.labels[best]!;
  });
  return { accuracy: predicted.filter((p, i) => p === truth[i]).length / truth.length, predicted };
}

const rows = (items: Sample[], features: Float32Array[]): LabelledFeatures[] => items.map((s, i) => ({ label: s.label, features: features[i]! }));
const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);

export default async function run(): Promise<void> {
  const train = loadFashionMnist('train');
  const test = loadFashionMnist('test');
  if (isMissing(train) || isMissing(test)) {
    console.log(`Skipped: dataset-fashion-mnist is not available (${isMissing(train) ? train.reason : isMissing(test) ? test.reason : ''}).\n`);
    return;
  }
  const trainSet = await samples(train, balancedSample(train.labels, TRAIN_PER_CLASS));
  const testSet = await samples(test, balancedSample(test.labels, TEST_PER_CLASS));
  const truth = testSet.map((s) => s.label);
  const seed = loadTrainingConfig(process.env).seed;
  const threads = Math.max(1, os.availableParallelism());
  console.log(
    `Fashion-MNIST: ${trainSet.length} training images (${TRAIN_PER_CLASS} per class, train split), ${testSet.length} test images ` +
      `(${TEST_PER_CLASS} per class, test split). Features ${CLASSIFIER_FEATURE_PIPELINE} (${CLASSIFIER_FEATURE_DIM} values), ` +
      `production trainer and seed ${seed}, ${threads} inference threads.\n`,
  );

  const pool = new InferencePool(threads);
  try {
    await pool.run('classifier-features', { image: trainSet[0]!.png });
    const t0 = performance.now();
    const trainFeatures = await productionFeatures(pool, trainSet);
    const featureMs = (performance.now() - t0) / trainSet.length;
    const t1 = performance.now();
    const trained = await trainClassifier(pool, rows(trainSet, trainFeatures), { seed });
    const trainSeconds = (performance.now() - t1) / 1000;
    const testFeatures = await productionFeatures(pool, testSet);
    const result = score(trained, testFeatures, truth);

    // The numbers above use predictImage on task features; the serving task must agree exactly.
    for (let i = 0; i < Math.min(20, testSet.length); i++) {
      const served = await pool.run('classifier-predict', { image: testSet[i]!.png, model: trained.result.model });
      const local = predictImage(trained.result.model, testFeatures[i]!);
      if (served.probabilities.some((p, c) => Math.abs(p - local[c]!) > 1e-9)) throw new Error(`classifier-predict disagrees with the evaluation on test image ${i}`);
    }

    const r = trained.result;
    printTable(
      ['test accuracy', 'validation accuracy', 'train / validation images', 'L2', 'epochs', 'features ms/image (wall, all threads)', 'training s'],
      [[pct(result.accuracy), pct(r.validationAccuracy), `${r.trainImages} / ${r.validationImages}`, r.l2, r.epochs, featureMs, trainSeconds]],
    );
    const goal = 0.85;
    console.log(`Goal ≥ ${pct(goal)}: ${result.accuracy >= goal ? 'met' : 'NOT met'}.\n`);

    const classes = [...FASHION_MNIST_CLASSES];
    const confusion = classes.map((t) => classes.map((p) => result.predicted.filter((x, i) => truth[i] === t && x === p).length));
    printTable(
      ['class', 'precision', 'recall'],
      classes.map((c, k) => {
        const predictedAs = confusion.reduce((n, row) => n + row[k]!, 0);
        const actual = confusion[k]!.reduce((a, b) => a + b, 0);
        return [c, pct(predictedAs ? confusion[k]![k]! / predictedAs : 0), pct(actual ? confusion[k]![k]! / actual : 0)];
      }),
    );
    console.log('Confusion matrix (rows: true class, columns: predicted):\n');
    printTable(['true \\ predicted', ...SHORT], confusion.map((row, k) => [SHORT[k]!, ...row]));

    const seeds = [seed, 1, 2, 3, 4];
    const spread = await Promise.all(
      seeds.map(async (s) => {
        const t = s === seed ? trained : await trainClassifier(pool, rows(trainSet, trainFeatures), { seed: s });
        return { s, validation: t.result.validationAccuracy, test: score(t, testFeatures, truth).accuracy };
      }),
    );
    console.log('Training seeds (same features; the seed picks the validation split and the optimiser order):\n');
    printTable(
      ['seed', 'validation accuracy', 'test accuracy'],
      [...spread.map((x) => [String(x.s), pct(x.validation), pct(x.test)]), ['median', '', pct(median(spread.map((x) => x.test)))]],
    );

    if (process.env.IRIS_EVAL_TRAINING_VARIANTS === '1') await variants(pool, trainSet, testSet, trainFeatures, testFeatures, seed);
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Other feature choices, on the same images and with the same trainer

const TAPS = {
  b9: CLASSIFIER_FEATURES.taps[0]!.node,
  b12: CLASSIFIER_FEATURES.taps[1]!.node,
  b14: CLASSIFIER_FEATURES.taps[2]!.node,
  last: MOBILENET_V2_MID_CONV,
} as const;
type Tap = keyof typeof TAPS;
type Blocks = Record<string, Float32Array>;

let graph: Promise<tfTypes.GraphModel> | null = null;

/** Every tap pooled three ways (gap, gem, grid: 2×2 GeM), each L2-normalised, at one squashed input size. */
async function blocksOf(rgb: RgbImage, size: number): Promise<Blocks> {
  const tf = await tfjs();
  graph ??= tf.loadGraphModel(tf.io.fromMemory(relaxInputShape(nsfwjsArtifacts(nsfwjsModelFile('mobilenet_v2_mid')))));
  const model = await graph;
  const image = sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } }).resize({ width: size, height: size, fit: 'fill' });
  const data = new Uint8Array(await image.raw().toBuffer());
  const names = Object.keys(TAPS) as Tap[];
  const { pooled, lastMap } = tf.tidy(() => {
    const x = tf.tensor4d(data, [1, size, size, 3], 'int32').toFloat().div(255);
    const maps = model.execute(x, names.map((n) => TAPS[n])) as tfTypes.Tensor4D[];
    const gem = (t: tfTypes.Tensor) => t.relu().add(1e-6).pow(3).mean([1, 2]).pow(1 / 3).flatten();
    return {
      lastMap: maps[names.indexOf('last')]!,
      pooled: maps.map((m) => {
        const [, h, w] = m.shape;
        const ch = Math.ceil(h / 2);
        const cw = Math.ceil(w / 2);
        const cells = [0, h - ch].flatMap((y) => [0, w - cw].map((x0) => gem(m.slice([0, y, x0, 0], [1, ch, cw, -1]))));
        return [m.mean([1, 2]).flatten(), gem(m), tf.concat(cells)];
      }),
    };
  });
  const out: Blocks = {};
  // The search embedding's descriptor before its PCA-whitening: R-MAC of the last conv map.
  const [, mh, mw, mc] = lastMap.shape;
  out['last.rmac'] = l2normalise(rmac({ data: (await lastMap.data()) as Float32Array, height: mh, width: mw, channels: mc }));
  lastMap.dispose();
  for (const [i, name] of names.entries()) {
    for (const [j, kind] of ['gap', 'gem', 'grid'].entries()) {
      const t = pooled[i]![j]!;
      out[`${name}.${kind}`] = l2normalise(Float32Array.from((await t.data()) as Float32Array));
      t.dispose();
    }
  }
  return out;
}

const concat = (parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const sum = (a: Float32Array, b: Float32Array) => l2normalise(a.map((v, i) => v + b[i]!));

async function variants(pool: InferencePool, trainSet: Sample[], testSet: Sample[], trainProd: Float32Array[], testProd: Float32Array[], seed: number): Promise<void> {
  const truth = testSet.map((s) => s.label);
  process.stderr.write('feature variants: computing blocks at 224 and 160 px …\n');
  const all = [...trainSet, ...testSet];
  const at224: Blocks[] = [];
  const at160: Blocks[] = [];
  for (const s of all) {
    at224.push(await blocksOf(s.rgb, 224));
    at160.push(await blocksOf(s.rgb, 160));
  }
  const grid3 = (b: Blocks) => concat([b['b9.grid']!, b['b12.grid']!, b['b14.grid']!]);
  const defs: [string, (i: number) => Float32Array][] = [
    ['search embedding descriptor: last conv layer (1792), R-MAC, 224 px, before PCA-whitening', (i) => at224[i]!['last.rmac']!],
    ['last conv layer, GAP, 224 px', (i) => at224[i]!['last.gap']!],
    ['last conv layer, GeM, 224 px', (i) => at224[i]!['last.gem']!],
    ['last conv layer, 2×2 GeM, 224 px', (i) => at224[i]!['last.grid']!],
    ['blocks 9+12+14, global GeM, 224 px', (i) => concat([at224[i]!['b9.gem']!, at224[i]!['b12.gem']!, at224[i]!['b14.gem']!])],
    ['blocks 9+12+14, 2×2 GeM, 224 px', (i) => grid3(at224[i]!)],
    ['blocks 9+12+14 + last, 2×2 GeM, 160 px', (i) => concat([grid3(at160[i]!), at160[i]!['last.grid']!])],
    ['blocks 9+12+14, 2×2 GeM, 160 + 224 px summed', (i) => concat([0, 1, 2].map((k) => sum([at160[i]!['b9.grid']!, at160[i]!['b12.grid']!, at160[i]!['b14.grid']!][k]!, [at224[i]!['b9.grid']!, at224[i]!['b12.grid']!, at224[i]!['b14.grid']!][k]!)))],
  ];
  const out: (string | number)[][] = [];
  for (const [name, pick] of defs) {
    const trainRows = trainSet.map((s, i) => ({ label: s.label, features: pick(i) }));
    const trained = await trainClassifier(pool, trainRows, { seed });
    const testFeatures = testSet.map((_, i) => pick(trainSet.length + i));
    out.push([name, trainRows[0]!.features.length, pct(trained.result.validationAccuracy), pct(score(trained, testFeatures, truth).accuracy)]);
  }
  const production = await trainClassifier(pool, rows(trainSet, trainProd), { seed });
  out.push([`production: blocks 9+12+14, 2×2 GeM, ${CLASSIFIER_FEATURES.inputSize} px (decode + render path)`, CLASSIFIER_FEATURE_DIM, pct(production.result.validationAccuracy), pct(score(production, testProd, truth).accuracy)]);

  // Mirrored training images as extra rows of the same images (augmentation), production features.
  const mirrored = await productionFeatures(
    pool,
    await Promise.all(trainSet.map(async (s) => ({ ...s, png: await sharp(s.png).flop().png().toBuffer() }))),
  );
  const augmented = await trainWithViews(pool, trainSet, trainProd, mirrored, seed);
  out.push(['production + mirrored training images', CLASSIFIER_FEATURE_DIM, pct(augmented.result.validationAccuracy), pct(score(augmented, testProd, truth).accuracy)]);
  console.log('Feature choices (same images, trainer and seed):\n');
  printTable(['features', 'dim', 'validation accuracy', 'test accuracy'], out);
}

/** Training with a second view (mirror) of every image: same group, scored on the original only. */
async function trainWithViews(pool: InferencePool, items: Sample[], original: Float32Array[], mirrored: Float32Array[], seed: number): Promise<TrainedClassifier> {
  const labels = [...new Set(items.map((s) => s.label))].sort();
  const dim = original[0]!.length;
  const n = items.length;
  const features = new Float32Array(2 * n * dim);
  original.forEach((f, i) => features.set(f, i * dim));
  mirrored.forEach((f, i) => features.set(f, (n + i) * dim));
  const classes = Int32Array.from([...items, ...items].map((s) => labels.indexOf(s.label)));
  const groups = Int32Array.from({ length: 2 * n }, (_, i) => i % n);
  const primary = Uint8Array.from({ length: 2 * n }, (_, i) => (i < n ? 1 : 0));
  // Without a step the task runs all of the training and answers its TrainResult.
  const result = (await pool.run('classifier-train', { data: { features, dim, classes: labels.length, labels: classes, groups, primary }, options: { seed } })) as TrainedClassifier['result'];
  return { labels, result };
}
