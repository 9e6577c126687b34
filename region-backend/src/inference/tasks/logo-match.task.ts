/** Finds instances of the registered reference logos in a query picture. */
import type { RgbImage } from '../../images/rgb-image.js';
import { queryFeatures } from '../../vision/logo/logo-features.js';
import { matchLibrary, type LibraryPayload, type LogoDetection } from '../../vision/logo/logo-matcher.js';
import { cvError, opencv } from '../../vision/runtime/opencv-runtime.js';
import type { SHORTLIST } from '../../vision/logo/logo-params.js';

export interface LogoMatchPayload {
  image: RgbImage;
  library: LibraryPayload;
  /** Shortlist settings other than the defaults (evaluation and benchmarks compare them). */
  shortlist?: typeof SHORTLIST;
}

export interface LogoMatchResult {
  detections: LogoDetection[];
  /** Keypoints found in the query. */
  keypoints: number;
  timings: {
    /** Time this thread spent loading OpenCV (only on its first call; 0 afterwards). */
    opencvLoadMs: number;
    featuresMs: number;
    matchMs: number;
  };
}

let loadReported = false;

export default async function logoMatchTask(payload: LogoMatchPayload): Promise<LogoMatchResult> {
  const { image, library, shortlist } = payload;
  const { cv, loadMs } = await opencv();
  const opencvLoadMs = loadReported ? 0 : loadMs;
  loadReported = true;
  try {
    const t0 = performance.now();
    const query = queryFeatures(cv, image);
    const t1 = performance.now();
    const detections = matchLibrary(query, library, shortlist);
    return { detections, keypoints: query.count, timings: { opencvLoadMs, featuresMs: t1 - t0, matchMs: performance.now() - t1 } };
  } catch (err) {
    throw cvError(cv, err);
  }
}
