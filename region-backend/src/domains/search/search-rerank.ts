/**
 * Geometric re-ranking of a search's best candidates (docs/search.md, "Robust matching"): the query's ORB
 * features are matched with each candidate's stored ones on an inference thread; a candidate whose match is
 * geometrically consistent gets the verified score (embedding/rerank-score.ts) and the matched regions. When
 * nothing verifies but the best vector score says "the same picture", the query's mirror image is tried.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type pg from 'pg';
import type { Verification } from '../../vision/embedding/geometric-verify.js';
import { RERANK, rerankScore, wantsMirrorPass } from '../../vision/embedding/rerank-score.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import type { VectorHit } from '../../vectors/vector-store.js';
import { itemFeatures } from '../search-services/index-items.repo.js';
import type { ServiceState } from '../search-services/search-service.repo.js';
import type { HitRecord } from './search-records.repo.js';

export interface Selected {
  hit: VectorHit;
  record: HitRecord;
  /** Set when re-ranking verified the match. */
  match?: Verification;
}

export interface RerankDeps {
  pool: pg.Pool;
  inference: InferencePool;
  service: ServiceState;
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
  const stored = await itemFeatures(deps.pool, deps.service.id, deps.service.pipeline, head.map((s) => s.hit.id));
  if (!stored.size) return selected;
  const options = { priority: 'interactive' as const, accountId: deps.accountId };
  const candidates = head.map((s) => stored.get(s.hit.id) ?? null);
  let verifications = await deps.inference.run('search-verify', { query: query.features, candidates }, options);
  // Nothing verified, yet the vector says "the same picture": perhaps a mirrored copy (ORB is not mirror-invariant).
  if ((query.mirrored || query.picture) && wantsMirrorPass(verifications, head[0]!.hit.score)) {
    const likely = head.map((s, i) => (s.hit.score >= RERANK.mirrorMinScore ? candidates[i]! : null));
    const mirrored = await query.mirrored;
    const mirror = mirrored ? { mirrored } : { mirrorOf: query.picture ?? null };
    verifications = await deps.inference.run('search-verify', { query: query.features, candidates: likely, ...mirror }, options);
  }
  const rescored = head.map((s, i) => {
    const match = verifications[i] ?? null;
    return match ? { ...s, hit: { ...s.hit, score: rerankScore(s.hit.score, match) }, match } : s;
  });
  rescored.sort((a, b) => b.hit.score - a.hit.score);
  return [...rescored, ...selected.slice(head.length)];
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
