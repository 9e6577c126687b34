import { verifyWithMirror, type Verification } from '../../embedding/geometric-verify.js';
import { unpackLocalFeatures } from '../../embedding/local-features.js';

export interface SearchVerifyPayload {
  /** packLocalFeatures bytes of the query. */
  query: Uint8Array;
  /** Of the query's mirror image; null when not extracted. */
  mirrored?: Uint8Array | null;
  /** Of each candidate; null where none are stored. */
  candidates: (Uint8Array | null)[];
}

/** `search-verify`: geometric verification of search candidates against the query (null = not verified). */
export default function searchVerifyTask(payload: unknown): (Verification | null)[] {
  const { query, mirrored, candidates } = payload as SearchVerifyPayload;
  return verifyWithMirror(
    unpackLocalFeatures(query),
    mirrored ? unpackLocalFeatures(mirrored) : null,
    candidates.map((c) => (c ? unpackLocalFeatures(c) : null)),
  );
}
