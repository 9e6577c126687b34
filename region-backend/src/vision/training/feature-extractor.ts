/**
 * Computes classifier features (feature-info.ts) of one image inside a worker thread: decode (orientation,
 * alpha dropped, sRGB), squash to the input square, run the backbone up to the three tapped blocks, GeM-pool
 * each map over a 2 × 2 grid, L2-normalise each tap's part so every block weighs the same.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { backboneInput, backboneSpec, sizeGroups, splitMaps } from '../embedding/backbone.js';
import type { EmbedderRef } from '../embedding/embedder-identity.js';
import { vectorOfViews } from '../embedding/embedder.js';
import { QUERY_VIEWS } from '../embedding/embedding-views.js';
import { l2normalise, type FeatureMap } from '../embedding/feature-pooling.js';
import { decodeImage, renderView } from '../embedding/image-views.js';
import { convertedSession } from '../runtime/converted-model.js';
import { CLASSIFIER_FEATURE_DIM, CLASSIFIER_FEATURES } from './feature-info.js';

export interface FeatureRequest {
  /** Encoded image bytes, or already decoded pixels. */
  image?: Uint8Array;
  rgb?: RgbImage;
  /** An operator's ONNX embedder (training/feature-pipeline.ts): its vector of the whole picture is the features. */
  embedder?: EmbedderRef;
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

const spec = () => backboneSpec(CLASSIFIER_FEATURES.taps.map((t) => t.node));

/** Generalised-mean pooling of each channel over the cells of a grid (rows of cells, then columns). */
export function gridGem(map: FeatureMap, grid: number, p: number): Float32Array {
  const { height, width, channels, data } = map;
  const cellH = Math.ceil(height / grid);
  const cellW = Math.ceil(width / grid);
  const out = new Float32Array(grid * grid * channels);
  const sums = new Float64Array(channels);
  for (let gy = 0; gy < grid; gy++) {
    const top = grid === 1 ? 0 : Math.round((gy * (height - cellH)) / (grid - 1));
    for (let gx = 0; gx < grid; gx++) {
      const left = grid === 1 ? 0 : Math.round((gx * (width - cellW)) / (grid - 1));
      sums.fill(0);
      for (let y = top; y < top + cellH; y++) {
        for (let x = left; x < left + cellW; x++) {
          const base = (y * width + x) * channels;
          for (let c = 0; c < channels; c++) sums[c] = sums[c]! + (Math.max(0, data[base + c]!) + 1e-6) ** p;
        }
      }
      const cell = (gy * grid + gx) * channels;
      for (let c = 0; c < channels; c++) out[cell + c] = (sums[c]! / (cellH * cellW)) ** (1 / p);
    }
  }
  return out;
}

/** Features of already rendered input pixels (the squares the backbone sees), same-size inputs batched. */
export async function featuresOfInputs(inputs: RgbImage[]): Promise<Float32Array[]> {
  const session = await convertedSession(spec());
  const { taps, grid, gemPower } = CLASSIFIER_FEATURES;
  const results: Float32Array[] = new Array(inputs.length);
  for (const group of sizeGroups(inputs)) {
    const out = await session.run({ [session.inputNames[0]!]: backboneInput(group.map((i) => inputs[i]!)) });
    const perTap = taps.map((t) => splitMaps(out[t.node]!));
    group.forEach((imageIndex, k) => {
      const features = new Float32Array(CLASSIFIER_FEATURE_DIM);
      let offset = 0;
      for (const [i, maps] of perTap.entries()) {
        const values = l2normalise(gridGem(maps[k]!, grid, gemPower));
        if (values.length !== taps[i]!.channels * grid * grid) throw new Error(`tap ${taps[i]!.node} gave ${values.length} values`);
        features.set(values, offset);
        offset += values.length;
      }
      results[imageIndex] = features;
    });
  }
  return results;
}

/** Features of already rendered input pixels (the square the backbone sees). */
export async function featuresOfInput(input: RgbImage): Promise<Float32Array> {
  return (await featuresOfInputs([input]))[0]!;
}

function inputOf(request: FeatureRequest): Uint8Array | RgbImage {
  if (request.image instanceof Uint8Array) {
    if (!request.image.length) throw new FeatureInputError('image is empty');
    return request.image;
  }
  const rgb = request.rgb;
  if (rgb && rgb.data instanceof Uint8Array && rgb.width > 0 && rgb.height > 0 && rgb.data.length === rgb.width * rgb.height * 3) return rgb;
  throw new FeatureInputError('classifier features need image bytes or rgb pixels (width × height × 3 bytes)');
}

export async function extractFeatures(request: FeatureRequest): Promise<FeatureResult> {
  const [result] = await extractFeaturesMany([request]);
  if (result instanceof Error) throw result;
  return result!;
}

/** Features of several images in one backbone batch; a request that fails answers its error. */
export async function extractFeaturesMany(requests: FeatureRequest[]): Promise<(FeatureResult | Error)[]> {
  if (requests.some((r) => r.embedder?.manifestPath)) {
    // Requests of an ONNX embedder one by one, the others as one backbone batch.
    const builtin = requests.filter((r) => !r.embedder?.manifestPath);
    const batch = builtin.length ? await extractFeaturesMany(builtin) : [];
    let next = 0;
    return Promise.all(requests.map(async (r) => (r.embedder?.manifestPath ? onnxFeatures(r, r.embedder).catch(asError) : batch[next++]!)));
  }
  const size = CLASSIFIER_FEATURES.inputSize;
  const prepared = await Promise.all(
    requests.map(async (request) => {
      try {
        const decoded = await decodeImage(inputOf(request));
        return { decoded, view: await renderView(decoded.rgb, { size, fit: 'squash' }) };
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    }),
  );
  const features = await featuresOfInputs(prepared.flatMap((p) => (p instanceof Error ? [] : [p.view])));
  let next = 0;
  return prepared.map((p) => (p instanceof Error ? p : { features: features[next++]!, width: p.decoded.width, height: p.decoded.height }));
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** An ONNX embedder's vector of the whole picture (the search query's views) as the features. */
async function onnxFeatures(request: FeatureRequest, embedder: EmbedderRef): Promise<FeatureResult> {
  const decoded = await decodeImage(inputOf(request));
  return { features: await vectorOfViews(decoded.rgb, QUERY_VIEWS, embedder), width: decoded.width, height: decoded.height };
}

/** Loads the backbone now (so a thread's first request does not pay for it). */
export async function warmUpFeatures(): Promise<void> {
  await convertedSession(spec());
}
