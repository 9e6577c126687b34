import { opencv } from '../../analysis/logo/opencv-runtime.js';
import { packLocalFeatures, queryLocalFeatures } from '../../embedding/local-features.js';
import type { Rgb } from '../runtime/pixels.js';

/**
 * `search-query-features`: the packed ORB features of a decoded query picture, for geometric re-ranking. Runs
 * beside `search-query-embed`, on another thread when the account may use two.
 */
export default async function searchQueryFeaturesTask(payload: unknown): Promise<Uint8Array> {
  const { rgb } = payload as { rgb: Rgb };
  return packLocalFeatures(queryLocalFeatures((await opencv()).cv, rgb));
}
