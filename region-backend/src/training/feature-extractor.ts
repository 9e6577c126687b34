/**
 * Computes classifier features (feature-info.ts) of one image inside a worker thread: decode (orientation,
 * alpha dropped, sRGB), squash to the input square, run the backbone up to the three tapped blocks, GeM-pool
 * each map over a 2 × 2 grid, L2-normalise each tap's part so every block weighs the same.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import { relaxInputShape } from '../embedding/backbone.js';
import { l2normalise } from '../embedding/feature-pooling.js';
import { decodeImage, renderView } from '../embedding/image-views.js';
import type { Rgb } from '../inference/runtime/pixels.js';
import { nsfwjsArtifacts, nsfwjsModelFile } from '../inference/runtime/nsfwjs-models.js';
import { tfjs } from '../inference/runtime/tfjs.js';
import { CLASSIFIER_FEATURE_DIM, CLASSIFIER_FEATURES } from './feature-info.js';

export interface FeatureRequest {
  /** Encoded image bytes, or already decoded pixels. */
  image?: Uint8Array;
  rgb?: Rgb;
}

export interface FeatureResult {
  features: Float32Array;
  width: number;
  height: number;
}

export class FeatureInputError extends Error {
  readonly code = 'invalid_feature_input';
  constructor(message: string) {
    super(message);
    this.name = 'FeatureInputError';
  }
}

let graph: Promise<tfTypes.GraphModel> | null = null;

function backbone(): Promise<tfTypes.GraphModel> {
  if (!graph) {
    graph = (async () => {
      const tf = await tfjs();
      return tf.loadGraphModel(tf.io.fromMemory(relaxInputShape(nsfwjsArtifacts(nsfwjsModelFile('mobilenet_v2_mid')))));
    })();
    graph.catch(() => {
      graph = null;
    });
  }
  return graph;
}

/** Generalised-mean pooling of each channel over the cells of a grid (rows of cells, then columns). */
function gridGem(tf: typeof tfTypes, map: tfTypes.Tensor4D, grid: number, p: number): tfTypes.Tensor1D {
  const [, height, width] = map.shape;
  const cellH = Math.ceil(height / grid);
  const cellW = Math.ceil(width / grid);
  const cells: tfTypes.Tensor1D[] = [];
  for (let gy = 0; gy < grid; gy++) {
    const top = grid === 1 ? 0 : Math.round((gy * (height - cellH)) / (grid - 1));
    for (let gx = 0; gx < grid; gx++) {
      const left = grid === 1 ? 0 : Math.round((gx * (width - cellW)) / (grid - 1));
      const cell = map.slice([0, top, left, 0], [1, cellH, cellW, -1]);
      cells.push(cell.relu().add(1e-6).pow(p).mean([1, 2]).pow(1 / p).flatten() as tfTypes.Tensor1D);
    }
  }
  return tf.concat(cells) as tfTypes.Tensor1D;
}

/** Features of already rendered input pixels (the square the backbone sees). */
export async function featuresOfInput(input: Rgb): Promise<Float32Array> {
  const tf = await tfjs();
  const model = await backbone();
  const { taps, grid, gemPower } = CLASSIFIER_FEATURES;
  const parts = tf.tidy(() => {
    const x = tf.tensor4d(input.data, [1, input.height, input.width, 3], 'int32').toFloat().div(255);
    const maps = model.execute(x, taps.map((t) => t.node)) as tfTypes.Tensor4D[];
    return maps.map((m) => gridGem(tf, m, grid, gemPower));
  });
  const out = new Float32Array(CLASSIFIER_FEATURE_DIM);
  let offset = 0;
  try {
    for (const [i, part] of parts.entries()) {
      const values = l2normalise(Float32Array.from((await part.data()) as Float32Array));
      if (values.length !== taps[i]!.channels * grid * grid) throw new Error(`tap ${taps[i]!.node} gave ${values.length} values`);
      out.set(values, offset);
      offset += values.length;
    }
  } finally {
    for (const part of parts) part.dispose();
  }
  return out;
}

function inputOf(request: FeatureRequest): Uint8Array | Rgb {
  if (request.image instanceof Uint8Array) {
    if (!request.image.length) throw new FeatureInputError('image is empty');
    return request.image;
  }
  const rgb = request.rgb;
  if (rgb && rgb.data instanceof Uint8Array && rgb.width > 0 && rgb.height > 0 && rgb.data.length === rgb.width * rgb.height * 3) return rgb;
  throw new FeatureInputError('classifier features need image bytes or rgb pixels (width × height × 3 bytes)');
}

export async function extractFeatures(request: FeatureRequest): Promise<FeatureResult> {
  const decoded = await decodeImage(inputOf(request));
  const size = CLASSIFIER_FEATURES.inputSize;
  const view = await renderView(decoded.rgb, { size, fit: 'squash' });
  return { features: await featuresOfInput(view), width: decoded.width, height: decoded.height };
}

/** Loads the backbone now (so a thread's first request does not pay for it). */
export async function warmUpFeatures(): Promise<void> {
  await backbone();
}
