/**
 * Keypoints of the query's windows (query-regions.ts) from one ORB description of the whole query: the query is
 * described at the scale a window alone would be described at, with a few times as many keypoints per window's
 * area as a query gets, strongest first, and each window takes the strongest keypoints that fall inside it, as
 * many as a query gets (what ORB of the window alone keeps: its strongest corners). One description serves every
 * window (instead of one ORB run per window), and it does not depend on which windows are verified, so it runs
 * beside the windows' vectors.
 *
 * Runs on inference threads only (OpenCV).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { Cv } from '../runtime/opencv-runtime.js';
import { DESCRIPTOR_BYTES } from '../logo/logo-params.js';
import { extractLocalFeatures, LOCAL_FEATURES, windowDescribeSide, type ExcludedRows, type LocalFeatures } from './local-features.js';
import { textBanner } from './text-banner.js';

type Box = readonly [number, number, number, number];

/** Keypoints described per window's area, as a multiple of a window's own share (so each window can pick its strongest). */
export const WINDOW_FEATURES_SPARE = 3;

/**
 * ORB features of the whole query for its windows of `side` (a share of the query's width and height), strongest
 * first: described at the longer side a window would be described at, divided by `side`. `banner` is the query's
 * text banner when its keypoint task already looked for it (null: it has none).
 */
export function windowsLocalFeatures(cv: Cv, image: RgbImage, side: number, banner: ExcludedRows | null = textBanner(image)): LocalFeatures {
  const window = { width: Math.max(1, Math.round(image.width * side)), height: Math.max(1, Math.round(image.height * side)) };
  const describeSide = Math.round(windowDescribeSide(window) / side);
  const features = Math.round((WINDOW_FEATURES_SPARE * LOCAL_FEATURES.queryFeatures) / (side * side));
  return extractLocalFeatures(cv, image, describeSide, features, false, banner, true);
}

/**
 * The first `limit` keypoints inside `box` (normalised [x, y, w, h] of the frame; the strongest when `all` is
 * from windowsLocalFeatures), in the window's own frame: what verification of a window's hits matches, its
 * match box then given inside the window (query-regions.ts, boxInQuery).
 */
export function featuresInWindow(all: LocalFeatures, box: Box, limit: number = LOCAL_FEATURES.queryFeatures): LocalFeatures {
  const [bx, by, bw, bh] = box;
  const x0 = bx * all.width;
  const y0 = by * all.height;
  const [w, h] = [bw * all.width, bh * all.height];
  const keep: number[] = [];
  for (let i = 0; i < all.count && keep.length < limit; i++) {
    const x = all.points[2 * i]! - x0;
    const y = all.points[2 * i + 1]! - y0;
    if (x >= 0 && y >= 0 && x < w && y < h) keep.push(i);
  }
  const width = Math.max(1, Math.ceil(w));
  const height = Math.max(1, Math.ceil(h));
  const points = new Float32Array(keep.length * 2);
  const descriptors = new Uint8Array(keep.length * DESCRIPTOR_BYTES);
  keep.forEach((i, k) => {
    points[2 * k] = all.points[2 * i]! - x0;
    points[2 * k + 1] = all.points[2 * i + 1]! - y0;
    descriptors.set(all.descriptors.subarray(i * DESCRIPTOR_BYTES, (i + 1) * DESCRIPTOR_BYTES), k * DESCRIPTOR_BYTES);
  });
  return { width, height, count: keep.length, points, descriptors };
}
