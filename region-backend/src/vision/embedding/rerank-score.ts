/**
 * The score of a search result: the cosine similarity of the two vectors, raised for a candidate whose match
 * was verified geometrically (geometric-verify.ts). One scale in every service: see docs/search.md for the
 * threshold above which a result shows the same picture.
 */
import type { Verification } from './geometric-verify.js';

export const RERANK = {
  /** Candidates verified per query (the best by vector score). */
  candidates: 10,
  /** A verified match scores at least this … */
  verifiedFloor: 0.9,
  /** … rising to 1 with this many inliers. */
  fullInliers: 80,
};

export function rerankScore(cosine: number, verification: Verification | null): number {
  if (!verification) return cosine;
  const strength = Math.min(1, verification.inliers / RERANK.fullInliers);
  return Math.max(cosine, RERANK.verifiedFloor + (1 - RERANK.verifiedFloor) * strength);
}
