/**
 * The production image embedder (see embedding-info.ts for what it is and docs/embedding.md for why):
 * decode → scenario views → MobileNetV2-Mid maps (last conv, blocks 12 and 14) → pooling per map, joined →
 * sum over views → PCA-whitening → L2.
 * Runs inside inference worker threads only; the model and the whitening matrix load once per thread.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { readFile } from 'node:fs/promises';
import { layerMaps, warmUpBackbone } from './backbone.js';
import { builtinPrecisionOf, type EmbedderRef } from './embedder-identity.js';
import { EMBEDDING_DIM, EMBEDDING_PIPELINE } from './embedding-info.js';
import { joinDescriptors, l2normalise, pool, type FeatureMap } from './feature-pooling.js';
import { decodeImage, type DecodedImage, type ImageInput } from './image-views.js';
import { renderView, type ViewSpec } from './image-views.js';
import { applyWhitening, decodeWhitening, type Whitening } from './pca-whitening.js';
import { scenarioViews } from './scenario-config.js';

export interface EmbedRequest {
  /** Encoded JPEG/PNG/WebP/GIF bytes; or `rgb` with already decoded pixels. */
  image?: Uint8Array;
  rgb?: RgbImage;
  /** Normalised crop [x, y, w, h] of the region to embed. */
  loc?: readonly number[];
  scenario?: string;
  /** An operator's ONNX embedder (embedder-identity.ts); the built-in pipeline when absent or manifest-less. */
  embedder?: EmbedderRef;
}

export interface EmbedResult {
  /** L2-normalised, EMBEDDING_DIM values. */
  vector: Float32Array;
  /** Size of the whole image after orientation. */
  width: number;
  height: number;
}

export class EmbedInputError extends Error {
  readonly code = 'invalid_embed_input';
  constructor(message: string) {
    super(message);
    this.name = 'EmbedInputError';
  }
}

let whitening: Promise<Whitening> | null = null;

function loadWhitening(): Promise<Whitening> {
  whitening ??= (async () => {
    const file = new URL(EMBEDDING_PIPELINE.whitening.file, import.meta.url);
    const { whitening: w } = decodeWhitening(await readFile(file));
    if (w.outputDim !== EMBEDDING_DIM) throw new Error(`${file.pathname} has ${w.outputDim} dimensions, expected ${EMBEDDING_DIM}`);
    return w;
  })();
  return whitening;
}

/** Loads the backbone and the whitening matrix (so the first request does not pay for it). */
export async function warmUpEmbedder(): Promise<void> {
  await Promise.all([warmUpBackbone(), loadWhitening()]);
}

function checkLoc(loc: unknown): readonly number[] | undefined {
  if (loc === undefined || loc === null) return undefined;
  const ok =
    Array.isArray(loc) &&
    loc.length === 4 &&
    loc.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1) &&
    loc[2] > 0 &&
    loc[3] > 0;
  if (!ok) throw new EmbedInputError('loc must be [x, y, w, h] with values in 0..1 and w, h > 0');
  return loc as number[];
}

function inputOf(request: EmbedRequest): ImageInput {
  if (request.image instanceof Uint8Array) {
    if (!request.image.length) throw new EmbedInputError('image is empty');
    return request.image;
  }
  const rgb = request.rgb;
  if (rgb && rgb.data instanceof Uint8Array && Number.isInteger(rgb.width) && Number.isInteger(rgb.height) && rgb.width > 0 && rgb.height > 0) {
    if (rgb.data.length !== rgb.width * rgb.height * 3) throw new EmbedInputError('rgb.data must hold width × height × 3 bytes');
    return rgb;
  }
  throw new EmbedInputError('embed needs image bytes or rgb pixels');
}

/** One view's descriptor: each layer's map pooled, then joined with the pipeline's layer weights. */
export function viewDescriptor(layers: FeatureMap[]): Float32Array {
  return joinDescriptors(
    layers.map((map) => pool(map, EMBEDDING_PIPELINE.pooling)),
    EMBEDDING_PIPELINE.layers.map((l) => l.weight),
  );
}

/** Sum of the view descriptors of one image (each view's layer maps), L2-normalised. */
function descriptorOf(views: FeatureMap[][]): Float32Array {
  let sum: Float32Array | null = null;
  for (const layers of views) {
    const v = viewDescriptor(layers);
    sum ??= new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) sum[i] = sum[i]! + v[i]!;
  }
  return l2normalise(sum!);
}

/** Sum of the L2-normalised pooled descriptors of the views (before whitening), for evaluation and tests. */
export async function pooledDescriptor(rgb: RgbImage, scenario?: string): Promise<Float32Array> {
  const views = await Promise.all(scenarioViews(scenario).map((v) => renderView(rgb, v)));
  return descriptorOf(await layerMaps(views));
}

/** The final vector of an image under a list of views (pooled per view, summed, whitened, L2). */
export async function vectorOfViews(rgb: RgbImage, viewSpecs: readonly ViewSpec[], embedder?: EmbedderRef): Promise<Float32Array> {
  return (await vectorsOfViewSets([{ rgb, views: viewSpecs }], embedder))[0]!;
}

/** The vector of each image under its views, with the built-in pipeline or an operator's ONNX embedder. */
async function vectorsOfViewSets(items: { rgb: RgbImage; views: readonly ViewSpec[] }[], embedder?: EmbedderRef): Promise<Float32Array[]> {
  if (embedder?.manifestPath) {
    const { checkedIdentity, onnxVectorsOfViews, viewForModel } = await import('./onnx-embedder.js');
    const identity = await checkedIdentity(embedder);
    const rendered = await Promise.all(items.map((item) => Promise.all(item.views.map((v) => renderView(item.rgb, viewForModel(v, identity))))));
    return onnxVectorsOfViews(embedder, rendered);
  }
  const rendered = await Promise.all(items.map((item) => Promise.all(item.views.map((v) => renderView(item.rgb, v)))));
  const [maps, w] = await Promise.all([layerMaps(rendered.flat(), undefined, builtinPrecisionOf(embedder)), loadWhitening()]);
  let next = 0;
  return rendered.map((views) => applyWhitening(w, descriptorOf(maps.slice(next, (next += views.length)))));
}

/** The request's image decoded (and cropped to its `loc`); throws EmbedInputError / ImageDecodeError. */
export function decodeEmbedInput(request: EmbedRequest): Promise<DecodedImage> {
  return decodeImage(inputOf(request), checkLoc(request.loc));
}

export async function embed(request: EmbedRequest): Promise<EmbedResult> {
  const [result] = await embedMany([request]);
  if (result instanceof Error) throw result;
  return result!;
}

/**
 * Embeds several images at once: every view of every image goes through the backbone in batches of
 * same-size views. A request that fails (bad image, bad loc) answers its error; the others are unaffected.
 */
export async function embedMany(requests: EmbedRequest[]): Promise<(EmbedResult | Error)[]> {
  return (await embedManyWithPixels(requests, (r) => scenarioViews(r.scenario))).map((r) => (r instanceof Error ? r : { vector: r.vector, width: r.width, height: r.height }));
}

/**
 * `embedMany` under the given views, keeping each image's decoded pixels (for local features). Requests of
 * one embedder run together (the built-in backbone batches same-size views of all of them).
 */
export async function embedManyWithPixels(requests: EmbedRequest[], viewsOf: (request: EmbedRequest) => readonly ViewSpec[]): Promise<((EmbedResult & { rgb: RgbImage }) | Error)[]> {
  const decoded = await Promise.all(
    requests.map(async (request) => {
      try {
        return await decodeEmbedInput(request);
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    }),
  );
  const results: ((EmbedResult & { rgb: RgbImage }) | Error)[] = decoded.map((d) => (d instanceof Error ? d : new Error('not embedded')));
  const groups = new Map<string, number[]>();
  requests.forEach((r, i) => {
    if (decoded[i] instanceof Error) return;
    const key = r.embedder?.manifestPath ? r.embedder.id : `builtin:${builtinPrecisionOf(r.embedder)}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  for (const indices of groups.values()) {
    const embedder = requests[indices[0]!]!.embedder;
    try {
      const vectors = await vectorsOfViewSets(indices.map((i) => ({ rgb: (decoded[i] as DecodedImage).rgb, views: viewsOf(requests[i]!) })), embedder);
      indices.forEach((i, k) => {
        const d = decoded[i] as DecodedImage;
        results[i] = { vector: vectors[k]!, width: d.width, height: d.height, rgb: d.rgb };
      });
    } catch (err) {
      // A model that cannot run (missing, changed) fails every request that needs it, not the others.
      if (!embedder?.manifestPath) throw err;
      for (const i of indices) results[i] = err instanceof Error ? err : new Error(String(err));
    }
  }
  return results;
}
