import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { packLocalFeatures, queryLocalFeatures } from '../../vision/embedding/local-features.js';
import { textBanner } from '../../vision/embedding/text-banner.js';
import type { RgbImage } from '../../images/rgb-image.js';

export interface SearchQueryFeaturesPayload {
  rgb: RgbImage;
  /** Also describe the mirror image (when a thread was idle: ready before the embedding, not after it). */
  mirror?: boolean;
}

export interface SearchQueryFeatures {
  /** packLocalFeatures bytes of the query. */
  features: Uint8Array;
  /** The same of its mirror image, when asked. */
  mirrored: Uint8Array | null;
}

/**
 * `search-query-features`: the packed ORB features of a decoded query picture (and of its mirror image), for
 * geometric re-ranking. Runs beside `search-query-embed`, on another thread when one is free.
 */
export default async function searchQueryFeaturesTask(payload: SearchQueryFeaturesPayload): Promise<SearchQueryFeatures> {
  const { cv } = await opencv();
  const banner = textBanner(payload.rgb);
  const features = packLocalFeatures(queryLocalFeatures(cv, payload.rgb, false, banner));
  return { features, mirrored: payload.mirror ? packLocalFeatures(queryLocalFeatures(cv, payload.rgb, true, banner)) : null };
}
