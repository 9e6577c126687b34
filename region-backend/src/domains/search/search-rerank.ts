/**
 * Geometric re-ranking of a search's best candidates (docs/search.md, "Robust matching"): the query's ORB
 * features are matched with each candidate's stored ones on an inference thread; a candidate whose match is
 * geometrically consistent gets the verified score (embedding/rerank-score.ts) and the matched regions. When
 * nothing verifies but the best vector score says "the same picture", the query's mirror image is tried.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { Verification } from '../../vision/embedding/geometric-verify.js';
import { RERANK, rerankScore, wantsMirrorPass } from '../../vision/embedding/rerank-score.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import type { VectorHit } from '../../vectors/vector-store.js';
import type { HitRecord } from './search-records.repo.js';
import type { CandidateFeatures } from './candidate-features.js';

export interface Selected {
  hit: VectorHit;
  record: HitRecord;
  /** Set when re-ranking verified the match. */
  match?: Verification;
}

export interface RerankDeps {
  inference: InferencePool;
  /** The candidates' stored keypoints (read beside their records when the search prefetched them). */
  features: CandidateFeatures;
  /** Candidates verified (the best by vector score); 0 turns re-ranking off. */
  candidates: number;
  accountId: number;
}

/**
 * packLocalFeatures bytes of the query, and for the mirror-image pass the decoded query or, when they are
 * being described beside the embedding, its mirror image's features (awaited only by a mirror pass; null
 * when describing them failed).
 */
export interface QueryLocalFeatures {
  features: Uint8Array;
  picture?: RgbImage;
  mirrored?: Promise<Uint8Array | null>;
}

export async function rerank(selected: Selected[], query: QueryLocalFeatures, deps: RerankDeps): Promise<Selected[]> {
  const head = selected.slice(0, deps.candidates);
  if (!head.length) return selected;
  await deps.features.read(head.map((s) => s.hit.id));
  const candidates = head.map((s) => deps.features.get(s.hit.id) ?? null);
  if (!candidates.some(Boolean)) return selected;
  const options = { priority: 'interactive' as const, accountId: deps.accountId };
  // Nothing verified, yet the vector says "the same picture": perhaps a mirrored copy (ORB is not mirror-invariant).
  // When the mirror image is already described, the same task tries it: no second round trip to a thread.
  const mirrorWanted = Boolean(query.mirrored || query.picture) && head[0]!.hit.score >= RERANK.mirrorMinScore;
  const likely = head.map((s) => s.hit.score >= RERANK.mirrorMinScore);
  const described = mirrorWanted ? await settled(query.mirrored) : undefined;
  const thenMirrored = described ? { mirrored: described, likely } : undefined;
  let verifications = await deps.inference.run('search-verify', { query: query.features, candidates, ...(thenMirrored ? { thenMirrored } : {}) }, options);
  if (mirrorWanted && !thenMirrored && wantsMirrorPass(verifications, head[0]!.hit.score)) {
    const mirrored = await query.mirrored;
    const mirror = mirrored ? { mirrored } : { mirrorOf: query.picture ?? null };
    verifications = await deps.inference.run('search-verify', { query: query.features, candidates: candidates.map((c, i) => (likely[i] ? c : null)), ...mirror }, options);
  }
  const rescored = head.map((s, i) => {
    const match = verifications[i] ?? null;
    return match ? { ...s, hit: { ...s.hit, score: rerankScore(s.hit.score, match) }, match } : s;
  });
  rescored.sort((a, b) => b.hit.score - a.hit.score);
  return [...rescored, ...selected.slice(head.length)];
}

/** The promise's value when it has already settled with one; undefined while pending or when it failed. */
async function settled<T>(promise: Promise<T> | undefined): Promise<T | undefined> {
  if (!promise) return undefined;
  const pending = Symbol('pending');
  // An already settled promise wins the race: its reaction is queued before the marker's.
  const value = await Promise.race([promise, Promise.resolve(pending)]).catch(() => pending);
  return value === pending ? undefined : (value as T);
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * Iris extension on a verified result: where the match is in the query and in the result picture, as the
 * specification's normalised boxes. Clients that do not know the field ignore it.
 */
export function matchedRegion(s: Selected): { matched_region?: { query: number[]; result: number[]; inliers: number } } {
  if (!s.match) return {};
  return { matched_region: { query: s.match.queryBox.map(round), result: s.match.candidateBox.map(round), inliers: s.match.inliers } };
}
