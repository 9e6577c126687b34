import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { verifyCandidates, verifyMirrored, type Verification } from '../../vision/embedding/geometric-verify.js';
import { queryLocalFeatures, unpackLocalFeatures } from '../../vision/embedding/local-features.js';
import type { RgbImage } from '../../images/rgb-image.js';
import { boxInQuery, type Box } from '../../vision/embedding/query-regions.js';
import { featuresInWindow } from '../../vision/embedding/window-features.js';

export interface SearchVerifyPayload {
  /** packLocalFeatures bytes of the query. */
  query: Uint8Array;
  /** The decoded query: when given, its mirror image is matched instead of `query` (a mirrored copy). */
  mirrorOf?: RgbImage | null;
  /** packLocalFeatures bytes of the query's mirror image, already described: matched instead of `query`. */
  mirrored?: Uint8Array | null;
  /**
   * A window of the query: `query` is then the query described at the windows' scale (search-window-features),
   * and its keypoints inside the window are matched.
   */
  window?: { box: Box } | null;
  /** Of each candidate; null where none are stored. */
  candidates: (Uint8Array | null)[];
}

/** `search-verify`: geometric verification of search candidates against the query (null = not verified). */
export default async function searchVerifyTask(payload: SearchVerifyPayload): Promise<(Verification | null)[]> {
  const { query, mirrorOf, mirrored, window, candidates } = payload;
  const stored = candidates.map((c) => (c ? unpackLocalFeatures(c) : null));
  if (window) {
    return verifyCandidates(featuresInWindow(unpackLocalFeatures(query), window.box), stored).map((v) => (v ? { ...v, queryBox: boxInQuery(window.box, v.queryBox) } : null));
  }
  if (mirrored) return verifyMirrored(unpackLocalFeatures(mirrored), stored);
  if (mirrorOf) return verifyMirrored(queryLocalFeatures((await opencv()).cv, mirrorOf, true), stored);
  return verifyCandidates(unpackLocalFeatures(query), stored);
}
