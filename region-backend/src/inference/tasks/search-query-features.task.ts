import { opencv } from '../../analysis/logo/opencv-runtime.js';
import { packLocalFeatures, queryLocalFeatures } from '../../embedding/local-features.js';
import type { Rgb } from '../runtime/pixels.js';

export interface QueryFeaturesResult {
  /** packLocalFeatures bytes of the query … */
  features: Uint8Array;
  /** … and of its mirror image (a mirrored copy of a catalogue picture is verified with these). */
  mirrored: Uint8Array;
}

/**
 * `search-query-features`: the packed ORB features of a decoded query picture and of its mirror image, for
 * geometric re-ranking. Runs beside `search-query-embed` (on another thread when one is free), so re-ranking
 * adds little to a query's time.
 */
export default async function searchQueryFeaturesTask(payload: unknown): Promise<QueryFeaturesResult> {
  const { rgb } = payload as { rgb: Rgb };
  const { cv } = await opencv();
  return { features: packLocalFeatures(queryLocalFeatures(cv, rgb)), mirrored: packLocalFeatures(queryLocalFeatures(cv, rgb, true)) };
}
