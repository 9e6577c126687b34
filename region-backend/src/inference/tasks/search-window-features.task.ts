import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { packLocalFeatures, type ExcludedRows } from '../../vision/embedding/local-features.js';
import { windowsLocalFeatures } from '../../vision/embedding/window-features.js';
import type { RgbImage } from '../../images/rgb-image.js';

export interface SearchWindowFeaturesPayload {
  rgb: RgbImage;
  /** The windows' side, a share of the query's width and height. */
  side: number;
  /** The query's text banner as its keypoint task found it (null: none); looked for again when absent. */
  banner?: ExcludedRows | null;
}

/**
 * `search-window-features`: the packed ORB features of a decoded query described at the scale of its windows
 * (window-features.ts), for verifying the windows' hits. Runs beside `search-query-regions`.
 */
export default async function searchWindowFeaturesTask(payload: SearchWindowFeaturesPayload): Promise<Uint8Array> {
  const { cv } = await opencv();
  return packLocalFeatures(windowsLocalFeatures(cv, payload.rgb, payload.side, payload.banner));
}
