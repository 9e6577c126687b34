/**
 * Regions of a query picture (docs/search.md, "Regions of the query"): when the whole picture's match is not
 * decisive, the picture may be only part of what the query shows (a product inside a collage or a shop page).
 * The query is then also embedded at a grid of windows, all in one model batch; each window's best hits are
 * verified with the whole query's keypoints. Turned and perspective queries need no region: ORB is
 * rotation-invariant and the homography models the perspective, so re-ranking's candidate set finds them
 * (`npm run eval -- search-robustness`: quarter turns and 70 % windows never won a query there).
 *
 * Runs on inference threads only (model).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from './embedder-identity.js';
import { viewSumsOf, vectorOfViewSum } from './embedder.js';
import { cropRgb, type ViewSpec } from './image-views.js';

export type Box = [number, number, number, number];

export interface QueryRegion {
  /** Normalised [x, y, w, h] of the window in the query as sent. */
  box: Box;
}

export const QUERY_REGIONS = {
  /** Window side (a share of the query's width and height) and the window positions along both axes. */
  side: 0.5,
  at: [0, 0.25, 0.5],
  /** Best new hits of each region that are verified. */
  hitsPerRegion: 2,
};

/**
 * The one view a window is embedded with, whatever the scenario (IRIS_EVAL_REGION_SIZE overrides its size in the
 * evaluation): the whole window, aspect kept, shorter side 224 px as the query's own view.
 */
export const REGION_VIEWS: readonly ViewSpec[] = [{ size: Number(process.env.IRIS_EVAL_REGION_SIZE ?? 224), fit: 'aspect' }];

/** The most regions a query may try. */
export const MAX_QUERY_REGIONS = QUERY_REGIONS.at.length ** 2;

/** The windows of a query, row by row. */
export function queryRegions(): QueryRegion[] {
  const { side, at } = QUERY_REGIONS;
  return at.flatMap((y) => at.map((x) => ({ box: [x, y, side, side] as Box })));
}

/** The pixels of one region of a query. */
export function regionPixels(rgb: RgbImage, region: QueryRegion): Promise<RgbImage> {
  return cropRgb(rgb, region.box);
}

/** One vector per region, all in one model batch. */
export async function embedQueryRegions(rgb: RgbImage, regions: readonly QueryRegion[], embedder?: EmbedderRef): Promise<Float32Array[]> {
  const items = await Promise.all(regions.map(async (region) => ({ rgb: await regionPixels(rgb, region), views: REGION_VIEWS })));
  const sums = await viewSumsOf(items, embedder);
  return Promise.all(sums.map((sum) => vectorOfViewSum(sum, embedder)));
}
