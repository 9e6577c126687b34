import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { packLocalFeatures, queryLocalFeatures } from '../../vision/embedding/local-features.js';
import type { RgbImage } from '../../images/rgb-image.js';

/**
 * `search-query-features`: the packed ORB features of a decoded query picture, for geometric re-ranking. Runs
 * beside `search-query-embed`, on another thread when the account may use two.
 */
export default async function searchQueryFeaturesTask(payload: unknown): Promise<Uint8Array> {
  const { rgb } = payload as { rgb: RgbImage };
  return packLocalFeatures(queryLocalFeatures((await opencv()).cv, rgb));
}
