import { verifyCandidates, type Verification } from '../../vision/embedding/geometric-verify.js';
import { unpackLocalFeatures } from '../../vision/embedding/local-features.js';

export interface SearchVerifyPayload {
  /** packLocalFeatures bytes of the query. */
  query: Uint8Array;
  /** Of each candidate; null where none are stored. */
  candidates: (Uint8Array | null)[];
}

/** `search-verify`: geometric verification of search candidates against the query (null = not verified). */
export default function searchVerifyTask(payload: SearchVerifyPayload): (Verification | null)[] {
  const { query, candidates } = payload;
  const q = unpackLocalFeatures(query);
  return verifyCandidates(q, candidates.map((c) => (c ? unpackLocalFeatures(c) : null)));
}
