/**
 * Quarter turns of a query (docs/search.md, "Turned queries"): a picture turned by 90°, 180° or 270° is usually
 * verified by re-ranking (ORB keypoints do not care about the turn), but a picture with few distinct corners (an
 * abstract swirl) is not, and its vector, computed upright, is not sure enough. When nothing verified while the
 * best vector score says "probably the same picture", the query turned back by each quarter turn is embedded
 * (three views of the query's own size, one model batch), and a candidate that a turned query finds at a score
 * of at least `bar` takes that score.
 *
 * The embedding runs on inference threads only (model).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from './embedder-identity.js';
import { queryVectorsOfViewSums, viewSumsOf } from './embedder.js';
import { queryViews } from './embedding-views.js';
import { rgbOfSharp, sharpOfRgb } from './image-views.js';

export const QUERY_TURNS = {
  angles: [90, 180, 270] as const,
  /** The turns are tried when nothing verified and the best vector score is at least this (the "same picture" cut). */
  minScore: 0.8,
  /**
   * A turned score counts from this on. On the evaluation's region set (`IRIS_EVAL_TURNS=0.8`) bars of
   * 0.88–0.95 find every turned picture and raise no wrong picture over 0.8; at 0.85 and below, wrong
   * pictures' scores rise (docs/benchmarks.md, "Quarter turns").
   */
  bar: 0.92,
};

/** Whether a query whose re-ranking verified nothing tries its quarter turns, given its best vector score. */
export function wantsTurns(bestScore: number): boolean {
  return bestScore >= QUERY_TURNS.minScore;
}

/** The picture turned clockwise by `angle` (a quarter turn). */
export async function turnRgb(rgb: RgbImage, angle: (typeof QUERY_TURNS.angles)[number]): Promise<RgbImage> {
  return rgbOfSharp(sharpOfRgb(rgb).rotate(angle));
}

/** One vector per quarter turn of the query, with the scenario's query views (one model batch). */
export async function embedTurns(rgb: RgbImage, scenario: string | undefined, embedder?: EmbedderRef): Promise<Float32Array[]> {
  const views = queryViews(scenario);
  const items = await Promise.all(QUERY_TURNS.angles.map(async (angle) => ({ rgb: await turnRgb(rgb, angle), views })));
  return queryVectorsOfViewSums(await viewSumsOf(items, embedder), embedder);
}
