/**
 * Regions of a query picture (docs/search.md, "Regions of the query"): when the whole picture's match is not
 * decisive, the picture may be only part of what the query shows (a product inside a collage or a shop page)
 * or be turned by a quarter. The query is then also embedded at a multi-scale grid of windows and turned by
 * 90°, 180° and 270°, all views in one model batch; each region's best hits are verified with the whole
 * query's keypoints (ORB is rotation-invariant and the homography models the perspective).
 *
 * Runs on inference threads only (model).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from './embedder-identity.js';
import { viewSumsOf, vectorOfViewSum } from './embedder.js';
import { queryViews } from './embedding-views.js';
import { cropRgb } from './image-views.js';

export type Box = [number, number, number, number];

export interface QueryRegion {
  /** Normalised [x, y, w, h] of the window in the query as sent; [0, 0, 1, 1] for a turned whole picture. */
  box: Box;
  /** Clockwise quarter turns applied to the window before embedding (0–3). */
  quarterTurns: number;
}

export const QUERY_REGIONS = {
  /** Window sides (shares of the query's width and height) and the positions of each along both axes. */
  scales: [
    { side: 0.5, at: [0, 0.25, 0.5] },
    { side: 0.7, at: [0, 0.3] },
  ],
  /** Quarter turns of the whole picture. */
  turns: [1, 2, 3],
  /** Best hits of each region that are verified. */
  hitsPerRegion: 2,
};

/** Quarter turns and windows of a query: the most a query may try. */
export const MAX_QUERY_REGIONS = QUERY_REGIONS.turns.length + QUERY_REGIONS.scales.reduce((n, s) => n + s.at.length ** 2, 0);

/** The windows and turns of a query, in the order they are embedded (turns first: they are the cheaper win). */
export function queryRegions(): QueryRegion[] {
  const regions: QueryRegion[] = QUERY_REGIONS.turns.map((quarterTurns) => ({ box: [0, 0, 1, 1], quarterTurns }));
  for (const { side, at } of QUERY_REGIONS.scales) {
    for (const y of at) for (const x of at) regions.push({ box: [x, y, side, side], quarterTurns: 0 });
  }
  return regions;
}

/** The picture turned clockwise by `quarterTurns` quarters (packed RGB, pixels moved, nothing resampled). */
export function turnRgb(rgb: RgbImage, quarterTurns: number): RgbImage {
  const turns = ((quarterTurns % 4) + 4) % 4;
  if (turns === 0) return rgb;
  const { width: w, height: h, data } = rgb;
  const [W, H] = turns === 2 ? [w, h] : [h, w];
  const out = new Uint8Array(data.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Where source pixel (x, y) lands after the turn.
      const [X, Y] = turns === 1 ? [h - 1 - y, x] : turns === 2 ? [w - 1 - x, h - 1 - y] : [y, w - 1 - x];
      const s = (y * w + x) * 3;
      const d = (Y * W + X) * 3;
      out[d] = data[s]!;
      out[d + 1] = data[s + 1]!;
      out[d + 2] = data[s + 2]!;
    }
  }
  return { data: out, width: W, height: H };
}

/** The pixels of one region of a query. */
export async function regionPixels(rgb: RgbImage, region: QueryRegion): Promise<RgbImage> {
  const whole = region.box.every((v, i) => v === [0, 0, 1, 1][i]);
  return turnRgb(whole ? rgb : await cropRgb(rgb, region.box), region.quarterTurns);
}

/** One vector per region, embedded with the scenario's query views in one model batch. */
export async function embedQueryRegions(rgb: RgbImage, regions: readonly QueryRegion[], scenario: string, embedder?: EmbedderRef): Promise<Float32Array[]> {
  const views = queryViews(scenario);
  const items = await Promise.all(regions.map(async (region) => ({ rgb: await regionPixels(rgb, region), views })));
  const sums = await viewSumsOf(items, embedder);
  return Promise.all(sums.map((sum) => vectorOfViewSum(sum, embedder)));
}
