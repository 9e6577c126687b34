import { opencv } from '../../vision/runtime/opencv-runtime.js';
import { verifyCandidates, verifyMirrored, type Verification } from '../../vision/embedding/geometric-verify.js';
import { queryLocalFeatures, unpackLocalFeatures } from '../../vision/embedding/local-features.js';
import type { RgbImage } from '../../images/rgb-image.js';

export interface SearchVerifyPayload {
  /** packLocalFeatures bytes of the query. */
  query: Uint8Array;
  /** The decoded query: when given, its mirror image is matched instead of `query` (a mirrored copy). */
  mirrorOf?: RgbImage | null;
  /** packLocalFeatures bytes of the query's mirror image, already described: matched instead of `query`. */
  mirrored?: Uint8Array | null;
  /** Of each candidate; null where none are stored. */
  candidates: (Uint8Array | null)[];
}

/** `search-verify`: geometric verification of search candidates against the query (null = not verified). */
export default async function searchVerifyTask(payload: SearchVerifyPayload): Promise<(Verification | null)[]> {
  const { query, mirrorOf, mirrored, candidates } = payload;
  const stored = candidates.map((c) => (c ? unpackLocalFeatures(c) : null));
  if (mirrored) return verifyMirrored(unpackLocalFeatures(mirrored), stored);
  if (mirrorOf) return verifyMirrored(queryLocalFeatures((await opencv()).cv, mirrorOf, true), stored);
  return verifyCandidates(unpackLocalFeatures(query), stored);
}
