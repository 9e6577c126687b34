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
  /**
   * When no candidate is verified but the best one's vector score is at least this (the query may be a
   * mirrored copy: the vector sees it, ORB does not), the query's mirror image is matched with the candidates
   * scoring at least this. In `npm run eval -- search-robustness` the mirrored crops that pass verifies score
   * 0.64–0.92 by vector (most under the 0.8 "same picture" cut), unrelated pictures about 0.5.
   */
  mirrorMinScore: 0.6,
};

/** Whether a query whose candidates were verified as given deserves the mirror-image pass. */
export function wantsMirrorPass(verifications: readonly unknown[], bestScore: number): boolean {
  return bestScore >= RERANK.mirrorMinScore && !verifications.some(Boolean);
}

/**
 * Whether re-ranking settled the query: a candidate was verified (the query shows an indexed picture). When
 * not, the query's regions are searched (docs/search.md, "Regions of the query").
 */
export function isDecisive(candidates: readonly { match?: unknown }[]): boolean {
  return candidates.some((c) => Boolean(c.match));
}

export function rerankScore(cosine: number, verification: Verification | null): number {
  if (!verification) return cosine;
  const strength = Math.min(1, verification.inliers / RERANK.fullInliers);
  return Math.max(cosine, RERANK.verifiedFloor + (1 - RERANK.verifiedFloor) * strength);
}
