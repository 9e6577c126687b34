/**
 * The two sides of visual search (docs/search.md, "Robust matching"):
 *
 * - indexing: the vector of the scenario's views plus thumbnail-sized copies of the picture, and the picture's
 *   compact ORB features for geometric re-ranking; in one pass, or in two (a first pass of the scenario's
 *   views makes the picture searchable at once; the second adds the thumbnail views to the first's view sum
 *   and describes the keypoints, giving the same vector as one pass);
 * - querying: the vector of the scenario's views, a second vector of the picture found inside a page or a
 *   frame (content-box.ts) when there is one, another of the picture without the text banner across it
 *   (text-banner.ts) when there is one, and the query's ORB features (none on the banner).
 *
 * Runs on inference threads only (model, OpenCV).
 */
import { movablePixels, type RgbImage } from '../../images/rgb-image.js';
import { opencv } from '../runtime/opencv-runtime.js';
import { contentBox } from './content-box.js';
import { decodeEmbedInput, EmbedInputError, embedManyWithPixels, vectorOfViews, type EmbedRequest } from './embedder.js';
import { indexViews, queryViews, THUMB_VIEWS } from './embedding-views.js';
import { scenarioViews } from './scenario-config.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures, queryLocalFeatures } from './local-features.js';
import { cropRgb } from './image-views.js';
import { textBanner, withoutRows } from './text-banner.js';

/** `whole`: everything at once; `first`: the scenario's views only; `second`: what the first pass left out. */
export type IndexPass = 'whole' | 'first' | 'second';

export interface IndexEmbedRequest extends EmbedRequest {
  /** Default `whole`. */
  pass?: IndexPass;
  /** For `second`: the `viewSum` the first pass answered. */
  viewSum?: Float32Array;
  /**
   * For `first`: answer the decoded pixels too (`rgb`), for the second pass to start from instead of decoding
   * the stored copy again. They are the pixels any pass decodes from this input, so both give the same result.
   * Not with a `loc` (the pixels would be the crop's).
   */
  keepPixels?: boolean;
}

export interface IndexEmbedding {
  vector: Float32Array;
  /** packLocalFeatures bytes; null after a first pass. */
  features: Uint8Array | null;
  /** After a first pass: the view sum its second pass completes; null otherwise. */
  viewSum: Float32Array | null;
  /** After a first pass asked to `keepPixels`: the decoded pixels (at most the working side). */
  rgb?: RgbImage;
  width: number;
  height: number;
}

export interface QueryEmbedding {
  /** The whole query's vector, then the content box's when one was found, then the picture's without its text banner when it has one. */
  vectors: Float32Array[];
  /** Normalised [x, y, w, h] of the picture found inside the query, or null. */
  box: [number, number, number, number] | null;
  features: Uint8Array;
  width: number;
  height: number;
}

export async function embedForIndex(request: IndexEmbedRequest): Promise<IndexEmbedding> {
  const [result] = await embedForIndexMany([request]);
  if (result instanceof Error) throw result;
  return result!;
}

/** Several images at once (one model batch for the views of each pass); a bad image answers its own error. */
export async function embedForIndexMany(requests: IndexEmbedRequest[]): Promise<(IndexEmbedding | Error)[]> {
  const results: (IndexEmbedding | Error)[] = requests.map(() => new Error('not embedded'));
  for (const pass of ['first', 'second', 'whole'] as const) {
    const indices = requests.flatMap((r, i) => ((r.pass ?? 'whole') === pass ? [i] : []));
    if (!indices.length) continue;
    const answers = await indexPass(pass, indices.map((i) => requests[i]!));
    indices.forEach((i, k) => (results[i] = answers[k]!));
  }
  return results;
}

async function indexPass(pass: IndexPass, requests: IndexEmbedRequest[]): Promise<(IndexEmbedding | Error)[]> {
  if (pass === 'first') {
    const embedded = await embedManyWithPixels(requests, (r) => scenarioViews(r.scenario));
    return embedded.map((e, k) =>
      e instanceof Error ? e : { vector: e.vector, features: null, viewSum: e.viewSum, width: e.width, height: e.height, ...(requests[k]!.keepPixels === true && !requests[k]!.loc ? { rgb: movablePixels(e.rgb) } : {}) },
    );
  }
  const bad = requests.map((r) => (pass === 'second' && !(r.viewSum instanceof Float32Array && r.viewSum.length > 0) ? new EmbedInputError('a second pass needs the first pass\'s viewSum') : null));
  const good = requests.filter((_, i) => !bad[i]);
  const [embedded, { cv }] = await Promise.all([
    pass === 'second' ? embedManyWithPixels(good, () => THUMB_VIEWS, (r) => r.viewSum!) : embedManyWithPixels(good, (r) => indexViews(r.scenario)),
    opencv(),
  ]);
  let next = 0;
  return bad.map((error) => {
    if (error) return error;
    const e = embedded[next++]!;
    if (e instanceof Error) return e;
    const features = packLocalFeatures(extractLocalFeatures(cv, e.rgb, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures));
    return { vector: e.vector, features, viewSum: null, width: e.width, height: e.height };
  });
}

/**
 * `features: false` leaves the ORB features out (empty): the search runs them as a separate task on another
 * thread, beside the embedding (search-query-features.task.ts).
 */
export async function embedForQuery(request: EmbedRequest & { features?: boolean }): Promise<QueryEmbedding> {
  const decoded = await decodeEmbedInput(request);
  const views = queryViews(request.scenario);
  const box = contentBox(decoded.rgb);
  const vectors = [await vectorOfViews(decoded.rgb, views, request.embedder)];
  if (box) vectors.push(await vectorOfViews(await cropRgb(decoded.rgb, box), views, request.embedder));
  const banner = textBanner(decoded.rgb);
  if (banner) vectors.push(await vectorOfViews(withoutRows(decoded.rgb, banner), views, request.embedder));
  const features = request.features === false ? new Uint8Array(0) : packLocalFeatures(queryLocalFeatures((await opencv()).cv, decoded.rgb, false, banner));
  return { vectors, box, features, width: decoded.width, height: decoded.height };
}
