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
import { whitenMany } from './whitening-session.js';

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

/** Sum of the view descriptors of one image (each view's layer maps), not normalised. */
function descriptorSum(views: FeatureMap[][]): Float32Array {
  let sum: Float32Array | null = null;
  for (const layers of views) {
    const v = viewDescriptor(layers);
    sum ??= new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) sum[i] = sum[i]! + v[i]!;
  }
  return sum!;
}

/** Sum of the L2-normalised pooled descriptors of the views (before whitening), for evaluation and tests. */
export async function pooledDescriptor(rgb: RgbImage, scenario?: string): Promise<Float32Array> {
  const views = await Promise.all(scenarioViews(scenario).map((v) => renderView(rgb, v)));
  return l2normalise(descriptorSum(await layerMaps(views)));
}

/** The final vector of an image under a list of views (pooled per view, summed, whitened, L2). */
export async function vectorOfViews(rgb: RgbImage, viewSpecs: readonly ViewSpec[], embedder?: EmbedderRef): Promise<Float32Array> {
  return (await vectorsOfViewSets([{ rgb, views: viewSpecs }], embedder))[0]!;
}

/** The vector of each image under its views, with the built-in pipeline or an operator's ONNX embedder. */
async function vectorsOfViewSets(items: { rgb: RgbImage; views: readonly ViewSpec[] }[], embedder?: EmbedderRef): Promise<Float32Array[]> {
  return Promise.all((await viewSumsOf(items, embedder)).map((sum) => vectorOfViewSum(sum, embedder)));
}

/**
 * Each image's sum of per-view descriptors, before normalisation and whitening. Sums of two lists of views
 * of one image add up to the sum of both lists, so an image's vector can be made in two passes
 * (search-embedding.ts: the scenario's views first, the thumbnail views later) and equal the one-pass vector.
 */
export async function viewSumsOf(items: { rgb: RgbImage; views: readonly ViewSpec[] }[], embedder?: EmbedderRef): Promise<Float32Array[]> {
  if (embedder?.manifestPath) {
    const { checkedIdentity, onnxViewSums, viewForModel } = await import('./onnx-embedder.js');
    const identity = await checkedIdentity(embedder);
    const rendered = await Promise.all(items.map((item) => Promise.all(item.views.map((v) => renderView(item.rgb, viewForModel(v, identity))))));
    return onnxViewSums(embedder, rendered);
  }
  const rendered = await Promise.all(items.map((item) => Promise.all(item.views.map((v) => renderView(item.rgb, v)))));
  const maps = await layerMaps(rendered.flat(), undefined, builtinPrecisionOf(embedder));
  let next = 0;
  return rendered.map((views) => descriptorSum(maps.slice(next, (next += views.length))));
}

/** base + sum, in a new array (float32 additions, as one pass over both lists of views makes them). */
function addedTo(base: Float32Array, sum: Float32Array): Float32Array {
  if (base.length !== sum.length) throw new EmbedInputError(`the earlier view sum has ${base.length} values, expected ${sum.length}`);
  const out = Float32Array.from(base);
  for (let i = 0; i < out.length; i++) out[i] = out[i]! + sum[i]!;
  return out;
}

/** The final vector of a view sum: L2-normalised, then (built-in pipeline) whitened. */
export async function vectorOfViewSum(sum: Float32Array, embedder?: EmbedderRef): Promise<Float32Array> {
  if (embedder?.manifestPath) return l2normalise(Float32Array.from(sum));
  return applyWhitening(await loadWhitening(), l2normalise(Float32Array.from(sum)));
}

/**
 * The final vectors of several view sums of one query that are never stored (its windows, its turns): the
 * built-in pipeline whitens them in one batch (whitening-session.ts), equal to vectorOfViewSum's within float
 * rounding.
 */
export async function queryVectorsOfViewSums(sums: readonly Float32Array[], embedder?: EmbedderRef): Promise<Float32Array[]> {
  if (embedder?.manifestPath) return Promise.all(sums.map((sum) => vectorOfViewSum(sum, embedder)));
  return whitenMany(await loadWhitening(), EMBEDDING_PIPELINE.whitening.file, sums.map((sum) => l2normalise(Float32Array.from(sum))));
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

/** An embedding with the image's decoded pixels (for local features) and its view sum (viewSumsOf). */
export type EmbedResultWithPixels = EmbedResult & { rgb: RgbImage; viewSum: Float32Array };

/**
 * `embedMany` under the given views, keeping each image's decoded pixels and view sum. Requests of one
 * embedder run together (the built-in backbone batches same-size views of all of them). `baseSumOf` gives
 * the view sum of an earlier pass over other views of the same image, added before the vector is made.
 */
export async function embedManyWithPixels<R extends EmbedRequest>(
  requests: R[],
  viewsOf: (request: R) => readonly ViewSpec[],
  baseSumOf?: (request: R) => Float32Array,
): Promise<(EmbedResultWithPixels | Error)[]> {
  const decoded = await Promise.all(
    requests.map(async (request) => {
      try {
        return await decodeEmbedInput(request);
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    }),
  );
  const results: (EmbedResultWithPixels | Error)[] = decoded.map((d) => (d instanceof Error ? d : new Error('not embedded')));
  const groups = new Map<string, number[]>();
  requests.forEach((r, i) => {
    if (decoded[i] instanceof Error) return;
    const key = r.embedder?.manifestPath ? r.embedder.id : `builtin:${builtinPrecisionOf(r.embedder)}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  for (const indices of groups.values()) {
    const embedder = requests[indices[0]!]!.embedder;
    try {
      const viewSums = await viewSumsOf(indices.map((i) => ({ rgb: (decoded[i] as DecodedImage).rgb, views: viewsOf(requests[i]!) })), embedder);
      for (const [k, i] of indices.entries()) {
        const d = decoded[i] as DecodedImage;
        try {
          const sum = baseSumOf ? addedTo(baseSumOf(requests[i]!), viewSums[k]!) : viewSums[k]!;
          results[i] = { vector: await vectorOfViewSum(sum, embedder), width: d.width, height: d.height, rgb: d.rgb, viewSum: sum };
        } catch (err) {
          if (!(err instanceof EmbedInputError)) throw err;
          results[i] = err;
        }
      }
    } catch (err) {
      // A model that cannot run (missing, changed) fails every request that needs it, not the others.
      if (!embedder?.manifestPath) throw err;
      for (const i of indices) results[i] = err instanceof Error ? err : new Error(String(err));
    }
  }
  return results;
}
