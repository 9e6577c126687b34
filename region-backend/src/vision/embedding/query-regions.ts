/**
 * Regions of a query picture (docs/search.md, "Regions of the query"): when the whole picture's match is not
 * decisive, the picture may be only part of what the query shows (a product inside a collage or a shop page).
 * The query is then also described at a grid of windows, pooled from one backbone pass over the whole query;
 * each window's best hits are verified with the whole query's keypoints. Turned and perspective queries need no region: ORB is
 * rotation-invariant and the homography models the perspective, so re-ranking's candidate set finds them
 * (`npm run eval -- search-robustness`: quarter turns and 70 % windows never won a query there).
 *
 * Runs on inference threads only (model).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { layerMaps } from './backbone.js';
import { builtinPrecisionOf, type EmbedderRef } from './embedder-identity.js';
import { queryVectorsOfViewSums, vectorOfViews, viewDescriptor, viewSumsOf } from './embedder.js';
import { subMap } from './feature-pooling.js';
import { cropRgb, renderView, type ViewSpec } from './image-views.js';
import { greyCopy, INSET_GREY_SIDE, insetBox } from './inset-box.js';

export type Box = [number, number, number, number];

export interface QueryRegion {
  /** Normalised [x, y, w, h] of the window in the query as sent. */
  box: Box;
}

export const QUERY_REGIONS = {
  /** Window side (a share of the query's width and height) and the window positions along both axes. */
  side: 0.5,
  at: [0, 0.25, 0.5],
  /** Best new hits of each region that are verified with the whole query's keypoints. */
  hitsPerRegion: 2,
  /**
   * Windows whose hits are also verified with the window's own keypoints (those of the whole query described at
   * the window's scale that fall inside it: window-features.ts, where the whole query's keypoints fall mostly on
   * the rest of the query), those whose best new hit scores highest: every window with a hit, since one
   * description serves them all and a verification costs little. Their best `hitsPerWindow` hits are verified so.
   */
  windowKeypoints: 9,
  hitsPerWindow: 5,
  /**
   * A picture pasted inside the query (inset-box.ts) is one more region, embedded cut out; its best new hit is
   * taken without verification from this score (the picture alone, as pasted: paintings and patterns that
   * keypoints do not verify).
   */
  insetBar: 0.9,
};

/**
 * The view of the whole query that the built-in embedder's windows are pooled from: one backbone pass over the
 * query at 1.29 times the query view's scale (shorter side 288 px). Since the picture pasted inside a query is
 * found by its border and embedded on its own, the evaluation finds as many pictures with the windows at 288 px
 * as at 352 (before it, 320 px lost collages), for two thirds of the pass (docs/benchmarks.md, "Picture inside a
 * larger picture").
 */
export const REGION_SCAN: ViewSpec = { size: 288, fit: 'aspect' };

/** The view a window is embedded with when it is cut out (an operator's ONNX embedder, whose maps Iris cannot see). */
export const REGION_VIEWS: readonly ViewSpec[] = [{ size: 224, fit: 'aspect' }];

/** The most regions a query may try. */
export const MAX_QUERY_REGIONS = QUERY_REGIONS.at.length ** 2;

/** The windows of a query, row by row. */
export function queryRegions(): QueryRegion[] {
  const { side, at } = QUERY_REGIONS;
  return at.flatMap((y) => at.map((x) => ({ box: [x, y, side, side] as Box })));
}

/** Indices of the windows to describe with their own keypoints, given each window's best new hit score, best first. */
export function windowsToDescribe(bestScores: readonly number[], count: number = QUERY_REGIONS.windowKeypoints): number[] {
  return bestScores
    .map((score, i) => ({ score, i }))
    .filter((w) => w.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, Math.max(0, count))
    .map((w) => w.i);
}

/** A box given inside a window, in the coordinates of the whole query. */
export function boxInQuery(window: Box, inner: Box): Box {
  return [window[0] + inner[0] * window[2], window[1] + inner[1] * window[3], inner[2] * window[2], inner[3] * window[3]];
}

/** The pixels of one region of a query. */
export function regionPixels(rgb: RgbImage, region: QueryRegion): Promise<RgbImage> {
  return cropRgb(rgb, region.box);
}

/**
 * One vector per region. The built-in embedder runs the backbone once over the whole query (REGION_SCAN) and
 * pools each window's cells of its maps (R-MAC's regions, GeM-pooled as the embedding is); an operator's ONNX
 * embedder embeds each cut-out window, all in one model batch.
 */
export async function embedQueryRegions(rgb: RgbImage, regions: readonly QueryRegion[], embedder?: EmbedderRef, scan: ViewSpec = REGION_SCAN): Promise<Float32Array[]> {
  if (!regions.length) return [];
  if (embedder?.manifestPath) {
    const items = await Promise.all(regions.map(async (region) => ({ rgb: await regionPixels(rgb, region), views: REGION_VIEWS })));
    const sums = await viewSumsOf(items, embedder);
    return queryVectorsOfViewSums(sums, embedder);
  }
  const [maps] = await layerMaps([await renderView(rgb, scan)], undefined, builtinPrecisionOf(embedder));
  return queryVectorsOfViewSums(regions.map((region) => viewDescriptor(maps!.map((map) => subMap(map, region.box)))), embedder);
}

/**
 * A picture pasted inside the query (inset-box.ts) and its vector: the picture cut out and embedded with the
 * query's own views, as a query of it alone would be. Null when the query shows none.
 */
export async function queryInset(rgb: RgbImage, views: readonly ViewSpec[], embedder?: EmbedderRef): Promise<{ box: Box; vector: Float32Array } | null> {
  const box = insetBox(greyCopy(rgb, INSET_GREY_SIDE));
  if (!box) return null;
  return { box, vector: await vectorOfViews(await cropRgb(rgb, box), views, embedder) };
}
