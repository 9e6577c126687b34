import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { describeQuery, mirrorLocalFeatures, packLocalFeatures, type ExcludedRows, type GreyPicture } from '../../vision/embedding/local-features.js';
import { textBanner } from '../../vision/embedding/text-banner.js';
import type { RgbImage } from '../../images/rgb-image.js';

/** What the mirror image is described from: the grey picture the query's features were described from. */
export interface DescribedQuery {
  grey: GreyPicture;
  banner: ExcludedRows | null;
}

/** The decoded query, or (for its mirror image) what the query's own task answered as `described`. */
export type SearchQueryFeaturesPayload = { rgb: RgbImage } | { mirrorOf: DescribedQuery };

export interface SearchQueryFeatures {
  /** packLocalFeatures bytes of the query, or of its mirror image when asked. */
  features: Uint8Array;
  /** For the query itself: what its mirror image can be described from (a task of its own, when wanted). */
  described?: DescribedQuery;
}

/**
 * `search-query-features`: the packed ORB features of a decoded query picture, or of its mirror image, for
 * geometric re-ranking. Runs beside `search-query-embed`, on another thread when one is free; the mirror image
 * is a task of its own, so the verification of the candidates never waits for it. Described from the query's
 * grey picture, the mirror image costs only its ORB: no text banner, colour conversion or rescaling again.
 */
export default async function searchQueryFeaturesTask(payload: SearchQueryFeaturesPayload): Promise<SearchQueryFeatures> {
  const { cv } = await opencv();
  if ('mirrorOf' in payload) return { features: packLocalFeatures(mirrorLocalFeatures(cv, payload.mirrorOf.grey, payload.mirrorOf.banner)) };
  const { features, grey, banner } = describeQuery(cv, payload.rgb, textBanner(payload.rgb));
  return { features: packLocalFeatures(features), described: { grey, banner } };
}
