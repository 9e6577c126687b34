import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { packLocalFeatures, queryLocalFeatures } from '../../vision/embedding/local-features.js';
import { textBanner } from '../../vision/embedding/text-banner.js';
import type { RgbImage } from '../../images/rgb-image.js';

export interface SearchQueryFeaturesPayload {
  rgb: RgbImage;
  /** Describe the query's mirror image instead (for the mirror pass). */
  mirror?: boolean;
}

export interface SearchQueryFeatures {
  /** packLocalFeatures bytes of the query, or of its mirror image when asked. */
  features: Uint8Array;
}

/**
 * `search-query-features`: the packed ORB features of a decoded query picture, or of its mirror image, for
 * geometric re-ranking. Runs beside `search-query-embed`, on another thread when one is free; the mirror image
 * is a task of its own, so the verification of the candidates never waits for it.
 */
export default async function searchQueryFeaturesTask(payload: SearchQueryFeaturesPayload): Promise<SearchQueryFeatures> {
  const { cv } = await opencv();
  return { features: packLocalFeatures(queryLocalFeatures(cv, payload.rgb, payload.mirror === true, textBanner(payload.rgb))) };
}
