/**
 * Every TFJS graph model of the pack, run on the same real photos through the TFJS original (wasm backend)
 * and through its ONNX conversion (the production path: manifest → cached conversion → ONNX Runtime).
 * Outputs must agree within a stated tolerance, and decoded answers (top labels, matched boxes) must be the same.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type * as tfTypes from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { realPhoto, REAL_PHOTOS } from '../../../test/support/real-photos.js';
import { temporaryModelCache } from '../../../test/support/temporary-model-cache.js';
import { decodeDetector } from '../detect/detector-output.js';
import { iou } from '../detect/detection.js';
import { resolveManifest } from '../runtime/model-config.js';
import type { ModelManifest } from '../runtime/model-manifest.js';
import { featureMaps, MOBILENET_V2_MID_CONV } from '../embedding/backbone.js';
import { loadManifestModel, manifestInput, type OutputTensor } from '../runtime/manifest-model.js';
import { nsfwjsArtifacts, relaxInputShape } from '../runtime/nsfwjs-models.js';
import { limitSide, resizeRgb, toInputTensor, type InputTensor } from '../runtime/pixels.js';
import { fileIOHandler, tfjs } from '../runtime/tfjs.js';
import { CLASSIFIER_FEATURES } from '../training/feature-info.js';
import { featuresOfInput } from '../training/feature-extractor.js';

temporaryModelCache('iris-onnx-cache-');
let photos: RgbImage[];

beforeAll(async () => {
  photos = await Promise.all(REAL_PHOTOS.map((p) => realPhoto(p)));
});


async function tfjsGraph(file: string, relax = false): Promise<tfTypes.GraphModel> {
  const tf = await tfjs();
  const handler = file.endsWith('.min.js') ? tf.io.fromMemory(relax ? relaxInputShape(nsfwjsArtifacts(file)) : nsfwjsArtifacts(file)) : fileIOHandler(file);
  return tf.loadGraphModel(handler);
}

/** Runs the TFJS original of a manifest on the same input tensor. */
async function runTfjs(manifest: ModelManifest, input: InputTensor): Promise<OutputTensor[]> {
  const tf = await tfjs();
  const graph = await tfjsGraph(manifest.file);
  const x = manifest.inputType === 'int32' ? tf.tensor(Int32Array.from(input.data), input.dims, 'int32') : tf.tensor(input.data, input.dims, 'float32');
  const out = (await graph.executeAsync(x, manifest.outputNames)) as tfTypes.Tensor | tfTypes.Tensor[];
  const list = Array.isArray(out) ? out : [out];
  const result = await Promise.all(list.map(async (t) => ({ data: Float32Array.from(await t.data()), dims: [...t.shape] })));
  tf.dispose([x, ...list]);
  return result;
}

/** Largest absolute difference, relative to the largest magnitude of the reference (floor 1). */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let diff = 0, scale = 1;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
    scale = Math.max(scale, Math.abs(a[i]!));
  }
  return diff / scale;
}

async function bothRuntimes(stage: string, input: InputTensor): Promise<{ manifest: ModelManifest; tf: OutputTensor[]; onnx: OutputTensor[] }> {
  const manifest = resolveManifest(stage);
  expect(manifest.runtime).toBe('tfjs-graph');
  const onnx = await (await loadManifestModel(manifest)).run(input);
  const tf = await runTfjs(manifest, input);
  expect(onnx.map((o) => o.dims)).toEqual(tf.map((o) => o.dims));
  return { manifest, tf, onnx };
}

/** Tolerance on outputs: float32 kernels differ in summation order, nothing more. */
const TOLERANCE = 1e-4;

function paddedTo32(img: RgbImage): RgbImage {
  const width = Math.ceil(img.width / 32) * 32;
  const height = Math.ceil(img.height / 32) * 32;
  const out = { data: new Uint8Array(width * height * 3), width, height };
  for (let y = 0; y < img.height; y++) out.data.set(img.data.subarray(y * img.width * 3, (y + 1) * img.width * 3), y * width * 3);
  return out;
}

describe('TFJS → ONNX conversion gives the same answers as the original', () => {
  it('object detector (CenterNet): heatmaps and sizes within 1e-4, the same labelled boxes', async () => {
    for (const photo of photos) {
      const manifest = resolveManifest('object-detector');
      const { tf, onnx } = await bothRuntimes('object-detector', manifestInput([photo], manifest));
      for (let i = 0; i < tf.length; i++) expect(relativeError(tf[i]!.data, onnx[i]!.data)).toBeLessThan(TOLERANCE);
      const [w, h] = manifest.inputSize;
      const a = decodeDetector(manifest, tf, w, h);
      const b = decodeDetector(manifest, onnx, w, h);
      expect(b.length).toBe(a.length);
      a.forEach((d, i) => {
        expect(b[i]!.classIndex).toBe(d.classIndex);
        expect(iou(b[i]!.box, d.box)).toBeGreaterThan(0.99);
      });
    }
    expect(photos.length).toBe(3);
  });

  it('face detector (FaceBoxes, cut before its NMS loop): scores and boxes within 1e-4, the same faces', async () => {
    let faces = 0;
    for (const photo of photos) {
      const manifest = resolveManifest('face-detector');
      const input = manifestInput([photo], manifest);
      const { tf, onnx } = await bothRuntimes('face-detector', input);
      for (let i = 0; i < tf.length; i++) expect(relativeError(tf[i]!.data, onnx[i]!.data)).toBeLessThan(TOLERANCE);
      const a = decodeDetector(manifest, tf, input.dims[2]!, input.dims[1]!);
      const b = decodeDetector(manifest, onnx, input.dims[2]!, input.dims[1]!);
      expect(b.length).toBe(a.length);
      a.forEach((d, i) => expect(iou(b[i]!.box, d.box)).toBeGreaterThan(0.99));
      faces += a.length;
    }
    expect(faces).toBeGreaterThan(2);
  });

  it('face attributes (FaceRes): gender, age distribution and face vector within 1e-4 on a batch of two', async () => {
    const manifest = resolveManifest('face-attributes');
    const crops = photos.slice(1).map((p) => resizeRgb(p, 224, 224));
    const { tf, onnx } = await bothRuntimes('face-attributes', manifestInput(crops, manifest));
    for (let i = 0; i < tf.length; i++) expect(relativeError(tf[i]!.data, onnx[i]!.data)).toBeLessThan(TOLERANCE);
  });

  it('person pose (MoveNet multi-pose, decoding included): people, keypoints and scores within 1e-4', async () => {
    for (const photo of photos) {
      const manifest = resolveManifest('person-pose');
      const input = toInputTensor([paddedTo32(limitSide(photo, 256))], manifest);
      const { tf, onnx } = await bothRuntimes('person-pose', input);
      expect(relativeError(tf[0]!.data, onnx[0]!.data)).toBeLessThan(TOLERANCE);
    }
  });

  it('person segmentation (Selfie): mask within 1e-3 (a quarter of one 0–255 mask level), mean within 1e-5', async () => {
    for (const photo of photos) {
      const manifest = resolveManifest('person-segmentation');
      const { tf, onnx } = await bothRuntimes('person-segmentation', manifestInput([photo], manifest));
      // Its sigmoids sit on steep slopes after two bilinear upsamplings: float32 rounding differences grow a little.
      expect(relativeError(tf[0]!.data, onnx[0]!.data)).toBeLessThan(1e-3);
      let sum = 0;
      tf[0]!.data.forEach((v, i) => (sum += Math.abs(v - onnx[0]!.data[i]!)));
      expect(sum / tf[0]!.data.length).toBeLessThan(1e-5);
    }
  });

  it('pornography classifier (nsfwjs MobileNetV2-Mid): probabilities within 1e-4, the same top label', async () => {
    const manifest = resolveManifest('porn-classifier');
    const { tf, onnx } = await bothRuntimes('porn-classifier', manifestInput(photos, manifest));
    expect(relativeError(tf[0]!.data, onnx[0]!.data)).toBeLessThan(TOLERANCE);
    for (let n = 0; n < photos.length; n++) {
      const top = (o: OutputTensor) => Array.from(o.data.subarray(n * 5, n * 5 + 5)).reduce((best, v, i, all) => (v > all[best]! ? i : best), 0);
      expect(top(onnx[0]!)).toBe(top(tf[0]!));
    }
  });

  it('embedding backbone and training taps (MobileNetV2-Mid, any input size): feature maps within 1e-4', async () => {
    const tf = await tfjs();
    const graph = await tfjsGraph(resolveManifest('porn-classifier').file, true);
    for (const photo of photos) {
      const view = resizeRgb(photo, 224, Math.round((224 * photo.height) / photo.width)); // aspect kept, as embedding views are
      const [onnxMap] = await featureMaps([view], 'float'); // the conversion itself (int8 is compared in backbone-int8.test.ts)
      const x = tf.tidy(() => tf.tensor4d(view.data, [1, view.height, view.width, 3], 'int32').toFloat().div(255));
      const ref = graph.execute(x, MOBILENET_V2_MID_CONV) as tfTypes.Tensor;
      expect(ref.shape).toEqual([1, onnxMap!.height, onnxMap!.width, onnxMap!.channels]);
      expect(relativeError(await ref.data(), onnxMap!.data)).toBeLessThan(TOLERANCE);
      tf.dispose([x, ref]);
    }
    // Training features: GeM over the three taps; the ONNX path pools in TypeScript.
    const square = resizeRgb(photos[0]!, CLASSIFIER_FEATURES.inputSize, CLASSIFIER_FEATURES.inputSize);
    const features = await featuresOfInput(square);
    const x = tf.tidy(() => tf.tensor4d(square.data, [1, square.height, square.width, 3], 'int32').toFloat().div(255));
    const maps = graph.execute(x, CLASSIFIER_FEATURES.taps.map((t) => t.node)) as tfTypes.Tensor4D[];
    const expected: number[] = [];
    for (const m of maps) {
      const part = tf.tidy(() => {
        const [, h, w] = m.shape;
        const ch = Math.ceil(h / 2), cw = Math.ceil(w / 2);
        const cells: tfTypes.Tensor[] = [];
        for (const top of [0, h - ch]) for (const left of [0, w - cw]) cells.push(m.slice([0, top, left, 0], [1, ch, cw, -1]).relu().add(1e-6).pow(3).mean([1, 2]).pow(1 / 3).flatten());
        const v = tf.concat(cells);
        return v.div(v.norm());
      });
      expected.push(...(await part.data()));
      part.dispose();
    }
    tf.dispose([x, ...maps]);
    expect(relativeError(expected, features)).toBeLessThan(TOLERANCE);
  });
});
