/**
 * The two sides of visual search (docs/search.md, "Robust matching"):
 *
 * - indexing: the vector of the scenario's views plus thumbnail-sized copies of the picture, and the picture's
 *   compact ORB features for geometric re-ranking;
 * - querying: the vector of the scenario's views, a second vector of the picture found inside a page or a
 *   frame (content-box.ts) when there is one, another of the picture without the text banner across it
 *   (text-banner.ts) when there is one, and the query's ORB features (none on the banner).
 *
 * Runs on inference threads only (model, OpenCV).
 */
import { opencv } from '../runtime/opencv-runtime.js';
import { contentBox } from './content-box.js';
import { decodeEmbedInput, embedManyWithPixels, vectorOfViews, type EmbedRequest } from './embedder.js';
import { indexViews, queryViews } from './embedding-views.js';
import { extractLocalFeatures, LOCAL_FEATURES, packLocalFeatures, queryLocalFeatures } from './local-features.js';
import { cropRgb } from './image-views.js';
import { textBanner, withoutRows } from './text-banner.js';

export interface IndexEmbedding {
  vector: Float32Array;
  /** packLocalFeatures bytes. */
  features: Uint8Array;
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

export async function embedForIndex(request: EmbedRequest): Promise<IndexEmbedding> {
  const [result] = await embedForIndexMany([request]);
  if (result instanceof Error) throw result;
  return result!;
}

/** Several images at once (one model batch for their views); a bad image answers its own error. */
export async function embedForIndexMany(requests: EmbedRequest[]): Promise<(IndexEmbedding | Error)[]> {
  const [embedded, { cv }] = await Promise.all([embedManyWithPixels(requests, (r) => indexViews(r.scenario)), opencv()]);
  return embedded.map((e) => {
    if (e instanceof Error) return e;
    const features = packLocalFeatures(extractLocalFeatures(cv, e.rgb, LOCAL_FEATURES.indexSide, LOCAL_FEATURES.indexFeatures));
    return { vector: e.vector, features, width: e.width, height: e.height };
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
