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
  /**
   * The mirror-image pass in the same task: when no candidate verifies, the query's mirror image (already
   * described) is matched with the candidates marked likely, and those verifications are the answer.
   */
  thenMirrored?: { mirrored: Uint8Array; likely: boolean[] };
}

/** `search-verify`: geometric verification of search candidates against the query (null = not verified). */
export default async function searchVerifyTask(payload: SearchVerifyPayload): Promise<(Verification | null)[]> {
  const { query, mirrorOf, mirrored, candidates, thenMirrored } = payload;
  const stored = candidates.map((c) => (c ? unpackLocalFeatures(c) : null));
  if (mirrored) return verifyMirrored(unpackLocalFeatures(mirrored), stored);
  if (mirrorOf) return verifyMirrored(queryLocalFeatures((await opencv()).cv, mirrorOf, true), stored);
  const verified = verifyCandidates(unpackLocalFeatures(query), stored);
  if (!thenMirrored || verified.some(Boolean)) return verified;
  return verifyMirrored(unpackLocalFeatures(thenMirrored.mirrored), stored.map((c, i) => (thenMirrored.likely[i] ? c : null)));
}
