/**
 * Quarter turns of the query (docs/search.md, "Turned queries"): when re-ranking verified none of the whole
 * picture's candidates but the best vector score says "probably the same picture", the query turned by 90°, 180°
 * and 270° searches the index too, and a candidate that a turned query finds at a score of at least the bar
 * takes that score. Queries that verified pay nothing.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { QUERY_TURNS, wantsTurns } from '../../vision/embedding/query-turns.js';
import { isDecisive } from '../../vision/embedding/rerank-score.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import type { Selected } from './search-rerank.js';

export interface TurnPassInput {
  picture: RgbImage;
  scenario: string;
  embedder: EmbedderRef;
  /** The re-ranked candidates, the best first: the ones a turned score may raise. */
  candidates: number;
  /** The filtered hits of each query vector, best first. */
  searchVectors: (vectors: Float32Array[], count: number) => Promise<Selected[][]>;
}

/** Whether the re-ranked candidates (best first) call for the quarter turns: none verified, the best one close. */
export function wantsTurnPass(head: readonly Selected[]): boolean {
  return head.length > 0 && !isDecisive(head) && wantsTurns(head[0]!.hit.score);
}

/** The ranking with the candidates' turned scores counted, best first (unchanged when the turns are not wanted). */
export async function turnPass(selected: Selected[], input: TurnPassInput, deps: { inference: InferencePool; accountId: number }): Promise<Selected[]> {
  const head = selected.slice(0, input.candidates);
  if (!wantsTurnPass(head)) return selected;
  const payload = { rgb: input.picture, scenario: input.scenario, ...(input.embedder.manifestPath ? { embedder: input.embedder } : {}) };
  const vectors = await deps.inference.run('search-query-turns', payload, { priority: 'interactive', accountId: deps.accountId });
  const turned = new Map<number, number>();
  for (const list of await input.searchVectors(vectors, head.length)) {
    for (const s of list) if (s.hit.score >= QUERY_TURNS.bar) turned.set(s.hit.id, Math.max(s.hit.score, turned.get(s.hit.id) ?? 0));
  }
  const rescored = head.map((s) => {
    const score = turned.get(s.hit.id);
    return score !== undefined && score > s.hit.score ? { ...s, hit: { ...s.hit, score } } : s;
  });
  rescored.sort((a, b) => b.hit.score - a.hit.score);
  return [...rescored, ...selected.slice(head.length)];
}
