/**
 * One search query: the query image (URL or upload, optionally a `loc` region) is decoded and embedded at
 * interactive priority with the service's scenario, the service's index is searched, and hits are joined with
 * their records' current attributes. Filters that the index cannot apply (record deleted meanwhile, product
 * keywords and prices, one result per product) run on the hits in score order; when too few pass, the search
 * is repeated with four times as many candidates, up to MAX_CANDIDATES.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import type pg from 'pg';
import type { z } from 'zod';
import { ApiError, joinTags, secondsText, type ProductSearchQueryInput, type ProductSearchResponse, type SearchQueryInput, type SearchResponse } from '@iris/shared';
import { embedderIdOf, type EmbedderRef } from '../../vision/embedding/embedder-identity.js';
import type { QueryEmbedding } from '../../vision/embedding/search-embedding.js';
import type { ExcludedRows } from '../../vision/embedding/local-features.js';
import { QueryImageError, type QueryImage, type QueryImageInput } from '../../http/query-image.js';
import { ImageDecodeError } from '../../images/image-decoder.js';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { InferenceTaskError, type InferencePool } from '../../inference/inference-pool.js';
import { matchesTags } from '../../vectors/tag-filter.js';
import type { VectorHit, VectorStore } from '../../vectors/vector-store.js';
import type { EmbedderRegistry } from '../search-services/embedder-registry.js';
import { findServiceState, type ServiceState } from '../search-services/search-service.repo.js';
import { ServiceGoneError, type ServiceIndexes } from '../search-services/service-indexes.js';
import { hasKeywords, inPriceRange, productFilter } from './product-filter.js';
import { parseSearchParams, type SearchParams } from './search-params.js';
import { matchedRegion, rerank, type Selected } from './search-rerank.js';
import { regionPass, type RegionGroup, type RegionOutcome } from './search-regions.js';
import { isDecisive } from '../../vision/embedding/rerank-score.js';
import { QUERY_REGIONS } from '../../vision/embedding/query-regions.js';
import { liveRecords, type HitRecord } from './search-records.repo.js';
import { CandidateFeatures } from './candidate-features.js';
import { turnPass, wantsTurnPass } from './search-turns.js';


/** Longest side of the decoded query image (the embedder works at ≤ 1024 px, like the stored copies). */
const QUERY_MAX_SIDE = 1024;
/** Most candidates one query examines when filters reject hits. */
export const MAX_CANDIDATES = 20_000;

export interface SearchDeps {
  pool: pg.Pool;
  inference: InferencePool;
  indexes: ServiceIndexes;
  /** Which model made each pipeline's vectors: queries run the one of the index that answers them. */
  embedders: EmbedderRegistry;
  decoder: ImageDecoderPool;
  /** Best candidates verified geometrically per query (0: no re-ranking). */
  rerankCandidates: number;
  /** Regions of a query searched when its whole picture's match is not decisive, at most (0: none). */
  maxRegions: number;
  /** A query that has already taken this long skips its regions (0: no limit). */
  regionsBudgetMs: number;
  acquireImage: (query: QueryImageInput, accountId: number) => Promise<QueryImage>;
}

export interface QueryInput<Q extends SearchQueryInput = SearchQueryInput> {
  accountId: number;
  serviceId: string;
  /** The query as the contract parsed it (SearchQuery, ProductSearchQuery): text fields and the uploaded image. */
  query: Q;
  requestId: string;
  /** performance.now() at the start of the request. */
  startedAt: number;
}

export type SearchAnswer = z.input<typeof SearchResponse>;
export type ProductSearchAnswer = z.input<typeof ProductSearchResponse>;


const round = (v: number, digits = 6) => Math.round(v * 10 ** digits) / 10 ** digits;

export class SearchQueryService {
  constructor(private readonly deps: SearchDeps) {}

  /** `POST /search/{service_id}`: pictures of an image set. */
  async searchImages(input: QueryInput): Promise<SearchAnswer> {
    const { envelope, page, groups } = await this.query(input, false);
    const results = (list: Selected[]) => list.map((s) => ({ ...imageResult(s), ...matchedRegion(s) }));
    return { ...envelope, results: results(page), ...(groups ? { regions: groupsOf(groups, results) } : {}) };
  }

  /** `POST /product_search/{service_id}`: products of a product set, one page. */
  async searchProducts(input: QueryInput<ProductSearchQueryInput>): Promise<ProductSearchAnswer> {
    const { envelope, page, params, groups } = await this.query(input, true);
    const results = (list: Selected[]) => list.map((s) => ({ ...productResult(s), ...matchedRegion(s) }));
    return { ...envelope, results: results(page), page: params.page, count: params.count, ...(groups ? { regions: groupsOf(groups, results) } : {}) };
  }

  private async query(input: QueryInput, product: boolean) {
    const service = await findServiceState(this.deps.pool, input.accountId, input.serviceId);
    if (!service) throw new ApiError('serviceNotFound', 'search service does not exist');
    const texts = Object.fromEntries(Object.entries(input.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    const params = parseSearchParams(texts, product);
    const image = await this.image(input.query, input.accountId);

    const { selected, preprocessMs, searchMs, answered, regions, regionsMs } = await this.search(service, image.bytes, params, product, input.accountId, input.startedAt);

    const page = product ? selected.slice(params.page * params.count, (params.page + 1) * params.count) : selected.slice(0, params.count);
    const envelope = {
      is_err: 0 as const,
      request_id: input.requestId,
      // The region whose results won (docs/search.md, "Regions of the query"), else the one asked for.
      loc: (params.loc ?? regions?.winner?.box ?? [0, 0, 1, 1]).map((v) => round(v)),
      ds: service.product_set_id ?? service.set_id,
      detect_time: secondsText(regionsMs),
      detection_score: regions?.verified[0] ? round(regions.verified[0].hit.score) : null,
      download_time: secondsText(image.downloadMs),
      preprocess_time: secondsText(preprocessMs),
      searchtime: secondsText(searchMs),
      time: secondsText(performance.now() - input.startedAt),
      // The embedder of the index that answered (the built-in pipeline's version, or an operator embedder's id).
      ver: embedderIdOf(answered),
    };
    return { envelope, page, params, groups: params.regions === 'all' ? (regions?.groups ?? []) : null };
  }

  /**
   * Records of the service best matching a query image, best first, as customers' searches rank them (the
   * service's self-evaluation): ids only, no response shaping.
   */
  async rankRecords(accountId: number, serviceId: string, bytes: Uint8Array, count: number): Promise<Selected[]> {
    const service = await findServiceState(this.deps.pool, accountId, serviceId);
    if (!service) throw new ApiError('serviceNotFound', 'search service does not exist');
    const params = parseSearchParams({ count: String(count) }, false);
    return (await this.search(service, bytes, params, false, accountId, performance.now())).selected.slice(0, count);
  }

  /**
   * Embeds the query, searches the index, re-ranks: the ranked hits, the time of each step and the pipeline
   * of the index that answered (while an index is rebuilt under a new embedder, the old one answers).
   */
  private async search(service: ServiceState, bytes: Uint8Array, params: SearchParams, product: boolean, accountId: number, startedAt: number) {
    const preprocessStarted = performance.now();
    const candidates = params.rerank ? this.deps.rerankCandidates : 0;
    const pipeline = this.deps.indexes.servingPipeline(service);
    let query = await this.embed(bytes, params, service.scenario, accountId, candidates > 0, await this.deps.embedders.embedderOf(pipeline));
    let preprocessMs = performance.now() - preprocessStarted;

    const searchStarted = performance.now();
    let answered = pipeline;
    let features = new CandidateFeatures(this.deps.pool, { id: service.id, pipeline });
    const hits = await this.useIndex(service, async (store, used) => {
      if (used !== pipeline) {
        // The new index came into service meanwhile: the query is embedded again with its model.
        const again = performance.now();
        query = await this.embed(bytes, params, service.scenario, accountId, candidates > 0, await this.deps.embedders.embedderOf(used));
        preprocessMs += performance.now() - again;
        answered = used;
        features = new CandidateFeatures(this.deps.pool, { id: service.id, pipeline: used });
      }
      // The best candidates' keypoints are read while their records are.
      const prefetch = candidates ? (lists: VectorHit[][]) => features.prefetch(lists.flatMap((list) => list.slice(0, candidates).map((h) => h.id))) : undefined;
      return this.selectAll(store, service, query.vectors, params, product, prefetch);
    });
    const served = { ...service, pipeline: answered };
    let selected = await rerank(hits, query, { inference: this.deps.inference, features, candidates, accountId });
    if (wantsTurnPass(selected.slice(0, candidates))) {
      const turns = { picture: query.picture, scenario: service.scenario, embedder: await this.deps.embedders.embedderOf(answered), candidates };
      selected = await this.useIndex(service, (store) =>
        turnPass(selected, { ...turns, searchVectors: (vectors, count) => this.selectMany(store, service, vectors, { ...params, count, page: 0 }, product) }, { inference: this.deps.inference, accountId }),
      );
    }
    const searchMs = performance.now() - searchStarted;

    const regionsStarted = performance.now();
    let regions: RegionOutcome | null = null;
    if (this.wantsRegions(params, selected, candidates, query.features.length > 0, startedAt)) {
      const tried = new Set(selected.slice(0, candidates).map((s) => s.hit.id));
      const embedder = await this.deps.embedders.embedderOf(answered);
      const perRegion = params.regions === 'all' ? params.count : QUERY_REGIONS.hitsPerRegion;
      regions = await this.useIndex(service, (store) =>
        regionPass(
          { picture: query.picture, banner: query.banner, features: query.features, embedder, maxRegions: this.deps.maxRegions, perRegion, tried, known: new Map(selected.flatMap((s) => (s.match ? [[s.hit.id, s.match] as const] : []))), searchVectors: (vectors, count, found) => this.selectMany(store, service, vectors, { ...params, count, page: 0 }, product, found) },
          { inference: this.deps.inference, service: served, accountId, features },
        ),
      );
      if (regions.verified.length) {
        const first = new Set(regions.verified.map((s) => s.hit.id));
        selected = [...regions.verified, ...selected.filter((s) => !first.has(s.hit.id))];
        if (product) selected = onePerProduct(selected);
      }
    }
    const regionsMs = regions ? performance.now() - regionsStarted : 0;
    return { selected, preprocessMs, searchMs, answered, regions, regionsMs };
  }

  /** Runs `fn` on the service's index; a service deleted meanwhile answers as one that does not exist. */
  private useIndex<T>(service: ServiceState, fn: (store: VectorStore, pipeline: string) => Promise<T> | T): Promise<T> {
    return this.deps.indexes.use(service, fn).catch((err: unknown) => {
      throw err instanceof ServiceGoneError ? new ApiError('serviceNotFound', 'search service does not exist') : err;
    });
  }

  /**
   * A query searches its regions when asked to (`regions=all`), or by default when re-ranking verified none of
   * its candidates (the whole picture's match is not decisive), within the query's time budget.
   */
  private wantsRegions(params: SearchParams, selected: Selected[], candidates: number, described: boolean, startedAt: number): boolean {
    if (params.regions === 'off' || params.loc || !this.deps.maxRegions || !described) return false;
    if (params.regions === 'all') return true;
    if (!candidates || !selected.length || isDecisive(selected.slice(0, candidates))) return false;
    return !this.deps.regionsBudgetMs || performance.now() - startedAt < this.deps.regionsBudgetMs;
  }

  private async image(query: QueryImageInput, accountId: number): Promise<QueryImage> {
    try {
      return await this.deps.acquireImage(query, accountId);
    } catch (err) {
      if (err instanceof QueryImageError) {
        throw new ApiError(err.problem === 'download' ? 'imageDownloadFailed' : 'invalidData', err.message);
      }
      throw err;
    }
  }

  private async embed(bytes: Uint8Array, params: SearchParams, scenario: string, accountId: number, rerank: boolean, embedder: EmbedderRef): Promise<QueryEmbedding & { picture: RgbImage; banner?: ExcludedRows | null; mirrored?: Promise<Uint8Array | null> }> {
    let rgb: RgbImage;
    try {
      rgb = await this.deps.decoder.rgb(bytes, { maxSide: QUERY_MAX_SIDE, ...(params.loc ? { crop: params.loc } : {}) }, 'interactive', accountId);
    } catch (err) {
      if (err instanceof ImageDecodeError) throw new ApiError('invalidData', `image cannot be decoded: ${err.message}`);
      throw err;
    }
    try {
      // The query's local features (re-ranking) are extracted beside its embedding, on another thread when one is
      // free: a short task, it may use an idle thread beyond the account's share (`mayBorrow`). When the pool
      // is idle, the mirror image is then described from the query's grey picture by a task of its own: only a
      // mirror pass waits for it, the verification of the candidates does not.
      const options = { priority: 'interactive' as const, accountId };
      const payload = { rgb, scenario, features: false, ...(embedder.manifestPath ? { embedder } : {}) };
      const mirror = rerank && this.deps.inference.idleThreads >= 2;
      const embedded = this.deps.inference.run('search-query-embed', payload, options);
      const described = rerank ? this.deps.inference.run('search-query-features', { rgb }, { ...options, mayBorrow: true }) : null;
      // A mirror pass without them describes the mirror image from the picture instead.
      const mirrored = mirror && described
        ? described.then((d) => (d.described ? this.deps.inference.run('search-query-features', { mirrorOf: d.described }, { ...options, mayBorrow: true }) : null)).then((m) => m?.features ?? null, () => null)
        : undefined;
      const [embedding, local] = await Promise.all([embedded, described]);
      if (!local) return { ...embedding, picture: rgb };
      // The decoded picture and its text banner also serve the mirror pass (when its mirror image was not
      // described) and the regions.
      return { ...embedding, features: local.features, picture: rgb, banner: local.described?.banner, ...(mirrored ? { mirrored } : {}) };
    } catch (err) {
      if (err instanceof InferenceTaskError && (err.code === 'image_decode_failed' || err.code === 'invalid_embed_input')) {
        throw new ApiError('invalidData', `image cannot be decoded: ${err.message}`);
      }
      throw err;
    }
  }

  /**
   * Hits of every query vector (the whole query, and the picture found inside it), merged by record with the
   * better score, best first; `found` sees each vector's hits before their records are read.
   */
  private async selectAll(store: VectorStore, service: ServiceState, vectors: Float32Array[], params: SearchParams, product: boolean, found?: (hits: VectorHit[][]) => void): Promise<Selected[]> {
    const [first, ...others] = await this.selectMany(store, service, vectors, params, product, found);
    if (!others.length) return first ?? [];
    const best = new Map<number, Selected>();
    for (const s of [first!, ...others].flat()) {
      const seen = best.get(s.hit.id);
      if (!seen || s.hit.score > seen.hit.score) best.set(s.hit.id, s);
    }
    const merged = [...best.values()].sort((a, b) => b.hit.score - a.hit.score);
    return product ? onePerProduct(merged) : merged;
  }

  /**
   * The page's hits of each vector that pass the records' filters. Each round searches the vectors still short of
   * the page, with one read of the records of all their new hits, and widens the search (×4) for a vector whose
   * hits the filters thinned below the page, until the store has no more candidates. `found` sees each round's
   * hits of each vector, best first, before their records are read.
   */
  private async selectMany(store: VectorStore, service: ServiceState, vectors: Float32Array[], params: SearchParams, product: boolean, found?: (hits: VectorHit[][]) => void): Promise<Selected[][]> {
    const need = (params.page + 1) * params.count;
    const limit = Math.min(store.size, MAX_CANDIDATES);
    // Stores that hold product attributes (pgvector) filter in SQL; the records are checked below all the same.
    const options = product ? { product: productFilter(params.keywords, params.minPrice, params.maxPrice) } : {};
    const records = new Map<number, HitRecord>();
    const selected: Selected[][] = vectors.map(() => []);
    let short = vectors.map((_, i) => i);
    for (let k = Math.min(limit, need + 8); short.length; k = Math.min(limit, k * 4)) {
      const hits = await Promise.all(short.map((i) => (k > 0 ? store.search(vectors[i]!, k, params.tags, options) : Promise.resolve([]))));
      found?.(hits);
      const unknown = [...new Set(hits.flat().map((h) => h.id))].filter((id) => !records.has(id));
      for (const [id, record] of await liveRecords(this.deps.pool, service.set_id, unknown)) records.set(id, record);
      short = short.filter((i, j) => {
        selected[i] = this.filter(hits[j]!, records, params, product);
        return !(selected[i].length >= need || hits[j]!.length < k || k >= limit);
      });
    }
    return selected;
  }

  private filter(hits: VectorHit[], records: Map<number, HitRecord>, params: SearchParams, product: boolean): Selected[] {
    const selected: Selected[] = [];
    const products = new Set<string>();
    for (const hit of hits) {
      const record = records.get(hit.id);
      if (!record) continue;
      // The index may hold tags from before an update it has not applied yet: the record's own tags decide.
      if (params.tags && !matchesTags(params.tags, record.tags)) continue;
      if (product) {
        if (!hasKeywords(record.keywords, params.keywords) || !inPriceRange(record.price, params.minPrice, params.maxPrice)) continue;
        // One result per product: its most similar image.
        const key = productKey(record);
        if (products.has(key)) continue;
        products.add(key);
      }
      selected.push({ hit, record });
    }
    return selected;
  }
}

/** `regions=all`: one group per region of the query, its box and its results. */
function groupsOf<R>(groups: RegionGroup[], results: (list: Selected[]) => R[]) {
  return groups.map((g) => ({ box: g.region.box.map((v) => round(v)), score: round(g.results[0]?.hit.score ?? 0), results: results(g.results) }));
}

/** What "one result per product" counts: the product, or the record itself when it names none. */
const productKey = (record: HitRecord) => (record.product_id ? `p:${record.product_id}` : `r:${record.id}`);

/** Product search answers one result per product; merging two vectors' hits may bring a product twice. */
function onePerProduct(selected: Selected[]): Selected[] {
  const seen = new Set<string>();
  return selected.filter(({ record }) => {
    const key = productKey(record);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function imageResult({ hit, record }: Selected) {
  return { metadata: record.meta, score: round(hit.score), url: record.url, tags: joinTags(record.tags) };
}

function productResult({ hit, record }: Selected) {
  return {
    product_id: record.product_id,
    price: record.price,
    keywords: record.keywords,
    url: record.url,
    metadata: record.meta,
    score: round(hit.score),
    tags: joinTags(record.tags),
  };
}
