/**
 * Regions of the query (docs/search.md, "Regions of the query"): when re-ranking verified none of the whole
 * picture's candidates, the query's windows (vision/embedding/query-regions.ts) are pooled from one backbone
 * pass over the query while, on the other thread, the query is described with keypoints at the windows' scale
 * and a picture pasted inside it is looked for (inset-box.ts), cut out and embedded: one more region when
 * found. Each region searches the index as soon as its vector is in (the windows' keypoints read while their
 * records are), and the best hits of each region are verified with the whole query's keypoints and the best
 * regions' hits with the region's own keypoints. A verified region hit is the
 * picture the query shows, and so is the pasted picture's best hit when its vector alone is that close
 * (`QUERY_REGIONS.insetBar`): the plain answer puts it first and answers that region as `loc`; `regions=all`
 * answers every region's results as a group.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type { EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import { QUERY_REGIONS, queryRegions, windowsToDescribe, type Box, type QueryRegion } from '../../vision/embedding/query-regions.js';
import type { Verification } from '../../vision/embedding/geometric-verify.js';
import type { ExcludedRows } from '../../vision/embedding/local-features.js';
import { rerankScore } from '../../vision/embedding/rerank-score.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import type { ServiceState } from '../search-services/search-service.repo.js';
import type { Selected } from './search-rerank.js';
import type { CandidateFeatures } from './candidate-features.js';
import type { VectorHit } from '../../vectors/vector-store.js';

export interface RegionGroup {
  region: QueryRegion;
  /** The region's results, best first (verified ones rescored). */
  results: Selected[];
}

export interface RegionOutcome {
  /** The pictures the regions show: verified hits of any region and the pasted picture's close hit, best first. */
  verified: Selected[];
  /** The region of the best of them. */
  winner: QueryRegion | null;
  groups: RegionGroup[];
}

export interface RegionPassInput {
  picture: RgbImage;
  /** The query's text banner as its keypoint task found it (null: none; absent: not looked for). */
  banner?: ExcludedRows | null;
  /** packLocalFeatures bytes of the whole query. */
  features: Uint8Array;
  embedder: EmbedderRef;
  /** Regions tried, at most. */
  maxRegions: number;
  /** Results each region needs (the plain answer: a few to verify; `regions=all`: the page). */
  perRegion: number;
  /** Records the whole picture's re-ranking already verified or rejected. */
  tried: ReadonlySet<number>;
  /** The whole picture's verified matches, by record: a group shows one as verified when its match lies in the window. */
  known?: ReadonlyMap<number, Verification>;
  /**
   * The filtered hits of each query vector, best first (one search of the records for all); `found` sees the
   * index's hits of each vector before the records filter them.
   */
  searchVectors: (vectors: Float32Array[], count: number, found?: (hits: VectorHit[][]) => void) => Promise<Selected[][]>;
}

export interface RegionPassDeps {
  inference: InferencePool;
  service: ServiceState & { pipeline: string; scenario: string };
  accountId: number;
  /** The candidates' stored keypoints, shared with the whole query's re-ranking. */
  features: CandidateFeatures;
}

/** The share of box `a` that lies inside box `b` (both normalised [x, y, w, h]). */
export function shareInside(a: readonly number[], b: readonly number[]): number {
  const [ax = 0, ay = 0, aw = 0, ah = 0] = a;
  const [bx = 0, by = 0, bw = 0, bh = 0] = b;
  const w = Math.max(0, Math.min(ax + aw, bx + bw) - Math.max(ax, bx));
  const h = Math.max(0, Math.min(ay + ah, by + bh) - Math.max(ay, by));
  // Rounding in the edges' sums can make the overlap a hair wider than the box itself; a share is never above 1.
  return aw * ah > 0 ? Math.min(1, (w * h) / (aw * ah)) : 0;
}

/** The regions of a query, cut to `max`. */
export const regionsOf = (max: number): QueryRegion[] => queryRegions().slice(0, Math.max(0, max));

export async function regionPass(input: RegionPassInput, deps: RegionPassDeps): Promise<RegionOutcome> {
  const windows = regionsOf(input.maxRegions);
  if (!windows.length) return { verified: [], winner: null, groups: [] };
  const options = { priority: 'interactive' as const, accountId: deps.accountId };
  const payload = { rgb: input.picture, ...(input.embedder.manifestPath ? { embedder: input.embedder } : {}) };
  const wanted = Math.max(input.perRegion + input.tried.size, QUERY_REGIONS.hitsPerWindow);
  const fresh = (list: Selected[]) => list.filter((x) => !input.tried.has(x.hit.id));
  /** A region's best new hits, verified with the whole query's keypoints. */
  const bestNew = (ids: number[]) => ids.filter((id) => !input.tried.has(id)).slice(0, QUERY_REGIONS.hitsPerRegion);
  // The hits each region may verify: its best new hits and its best hits (with its own keypoints, when it is
  // described).
  const candidatesOf = (idLists: number[][]) => [...new Set(idLists.flatMap((ids) => [...bestNew(ids), ...ids.slice(0, QUERY_REGIONS.hitsPerWindow)]))];
  const idsOf = (lists: { id: number }[][]) => lists.map((list) => list.map((x) => x.id));
  // The candidates' keypoints are read while the records of the index's hits are (the filters rarely drop a hit;
  // what they did drop is read after).
  const features = deps.features;
  const prefetch = (hits: VectorHit[][]) => features.prefetch(candidatesOf(idsOf(hits)));
  const matches = new Map<number, Verification>();
  const sentWhole = new Set<number>();
  // Verifies records with the whole query's keypoints, each once (a match does not depend on the region that found it).
  const verifyWhole = async (ids: number[]) => {
    const known = [...new Set(ids)].filter((id) => features.get(id) && !sentWhole.has(id));
    known.forEach((id) => sentWhole.add(id));
    if (!known.length) return;
    const found = await deps.inference.run('search-verify', { query: input.features, candidates: known.map((id) => features.get(id)!) }, options);
    known.forEach((id, k) => found[k] && matches.set(id, found[k]!));
  };
  // The built-in embedder pools every window from one backbone pass over the whole query; the windows' keypoints,
  // needed whichever windows are verified, and the pasted picture are looked for meanwhile on a free thread. Each
  // region's hits are searched, read and verified with the whole query's keypoints as soon as its vector is in:
  // the windows' while the pasted picture is still looked for.
  const windowsDone = deps.inference.run('search-query-regions', { ...payload, regions: windows }, options).then(async (vectors) => {
    const hits = await input.searchVectors(vectors, wanted, prefetch);
    const ids = idsOf(hits.map((list) => list.map((s) => s.hit)));
    await features.read(candidatesOf(ids));
    const whole = verifyWhole(ids.flatMap(bestNew));
    // Awaited below; until then a failure is not left unhandled when another part of the pass fails first.
    whole.catch(() => undefined);
    return { hits, whole };
  });
  const insetDone = deps.inference.run('search-query-inset', { ...payload, scenario: deps.service.scenario }, { ...options, mayBorrow: true }).then(async (inset) => {
    if (!inset) return null;
    const [hits] = await input.searchVectors([inset.vector], wanted, prefetch);
    await features.read(candidatesOf(idsOf([hits!.map((s) => s.hit)])));
    return { box: inset.box, hits: hits! };
  });
  const [windowFeatures, windowPass, inset] = await Promise.all([
    deps.inference.run('search-window-features', { rgb: input.picture, side: QUERY_REGIONS.side, banner: input.banner }, { ...options, mayBorrow: true }),
    windowsDone,
    insetDone,
  ]);
  const regions: QueryRegion[] = inset ? [...windows, { box: inset.box }] : windows;
  const hits = inset ? [...windowPass.hits, inset.hits] : windowPass.hits;

  // The best few new hits of each region are verified with the whole query's keypoints; a record keeps the
  // region that scored it best. The windows whose best new hit scores highest also verify their hits with
  // keypoints of their own (the whole query's fall mostly outside a small picture inside it), the whole
  // query's candidates whose keypoints were rejected included.
  const toVerify = new Map<number, { selected: Selected; region: number }>();
  hits.forEach((list, r) => {
    for (const s of fresh(list).slice(0, QUERY_REGIONS.hitsPerRegion)) {
      const seen = toVerify.get(s.hit.id);
      if (!seen || seen.selected.hit.score < s.hit.score) toVerify.set(s.hit.id, { selected: s, region: r });
    }
  });
  const described = windowsToDescribe(hits.map((list) => list[0]?.hit.score ?? 0)).map((r) => ({ r, list: hits[r]!.slice(0, QUERY_REGIONS.hitsPerWindow).filter((s) => features.get(s.hit.id)) }));
  // The windows' verifications in two tasks, one per thread, each unpacking the windows' keypoints once: every
  // other window to each, as they come best first.
  const halves = [0, 1].map((half) => described.filter((_, k) => k % 2 === half));
  const verifyWindows = (list: typeof described) =>
    list.length ? deps.inference.run('search-verify-windows', { query: windowFeatures, windows: list.map((w) => ({ box: regions[w.r]!.box, candidates: w.list.map((s) => features.get(s.hit.id)!) })) }, options) : Promise.resolve([]);
  // Both verifications at once (each a few milliseconds): the whole query's matches count first.
  const [, byHalf] = await Promise.all([Promise.all([windowPass.whole, verifyWhole([...toVerify.keys()])]), Promise.all(halves.map(verifyWindows))]);
  const perWindow = described.map((_, k) => byHalf[k % 2]![Math.floor(k / 2)]);
  described.forEach((w, k) =>
    w.list.forEach((s, i) => {
      const match = perWindow[k]?.[i];
      if (!match || matches.has(s.hit.id)) return;
      matches.set(s.hit.id, match);
      toVerify.set(s.hit.id, { selected: s, region: w.r });
    }),
  );

  const rescore = (s: Selected): Selected => {
    const match = matches.get(s.hit.id);
    return match ? { ...s, hit: { ...s.hit, score: rerankScore(s.hit.score, match) }, match } : s;
  };
  const found = [...matches.keys()].map((id) => ({ ...toVerify.get(id)!, selected: rescore(toVerify.get(id)!.selected) }));
  // The pasted picture's best hit, unverified, when its vector alone is that close: a picture keypoints miss
  // (a painting, a pattern), which the whole query's keypoints may have rejected, as it fills a small part of it.
  const insetBest = inset ? hits[windows.length]![0] : undefined;
  if (insetBest && insetBest.hit.score >= QUERY_REGIONS.insetBar && !matches.has(insetBest.hit.id)) found.push({ selected: insetBest, region: windows.length });
  const verified = found.sort((a, b) => b.selected.hit.score - a.selected.hit.score);
  const inWindow = (s: Selected, box: Box): Selected => {
    const match = input.known?.get(s.hit.id);
    return !matches.has(s.hit.id) && match && shareInside(match.queryBox, box) >= 0.5 ? { ...s, hit: { ...s.hit, score: rerankScore(s.hit.score, match) }, match } : rescore(s);
  };
  // A group's results: the region's hits rescored where verified, best first, so a verified hit below the first
  // few by vector still leads its group.
  const groups = regions.map((region, r) => ({ region, results: hits[r]!.map((s) => inWindow(s, region.box)).sort((a, b) => b.hit.score - a.hit.score).slice(0, input.perRegion) }));
  return { verified: verified.map((v) => v.selected), winner: verified.length ? regions[verified[0]!.region]! : null, groups };
}
