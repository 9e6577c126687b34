/**
 * The vector index of one search service. Implementations: `HnswVectorStore` (default, approximate, hnswlib,
 * in process memory), `ExactVectorStore` (brute force: small services, and the reference for recall
 * measurements) and `PgVectorStore` (pgvector tables in a PostgreSQL database shared by every process).
 * The store holds only what search needs (record row id, unit vector, tags, product attributes); PostgreSQL
 * stays the source of truth, and a store whose copy is missing, corrupt or stale is rebuilt from it.
 *
 * The in-memory stores answer synchronously; the pgvector store returns promises. Code that works with any
 * store awaits the results (`Awaitable`); code holding a concrete in-memory store may use them directly.
 */
import type { TagFilter } from './tag-filter.js';

export interface VectorItem {
  /** Record row id (PostgreSQL bigserial; any safe non-negative integer). */
  id: number;
  /** Embedding, expected L2-normalised (re-normalised on insert; a zero or non-finite vector is refused). */
  vector: Float32Array;
  /** Tags of the record, as stored (a `|` inside an element also separates tags). */
  tags: readonly string[];
  /** Product attributes, kept by stores that filter on them (pgvector); the others ignore them. */
  product?: ProductAttributes;
}

export interface ProductAttributes {
  /** Parsed price; null when the record has none (it then never passes a price bound). */
  price: number | null;
  /** The keyword words (lower case, normalised), as `keywordWords` splits them. */
  words: readonly string[];
  /** The whole keywords text, lower case and normalised, for words of scripts written without spaces. */
  text: string;
}

/** Product filters a store may apply before ranking (`price > minPrice`, `price <= maxPrice`, every keyword). */
export interface ProductFilter {
  minPrice: number | null;
  maxPrice: number | null;
  /** A word matches a whole keyword word, or with `substring` anywhere in the keywords text. */
  keywords: readonly { word: string; substring: boolean }[];
}

export type Awaitable<T> = T | Promise<T>;

export interface VectorHit {
  id: number;
  /** (1 + cosine) / 2, in [0, 1]; see `cosineToScore`. */
  score: number;
}

/** What a persisted index was built from; the owner compares it with PostgreSQL to decide whether to rebuild. */
export interface VectorStoreMeta {
  /** The embedding model/pipeline version the vectors came from (`EMBEDDING_VERSION`). */
  embeddingVersion: string;
  dimension: number;
  /**
   * Monotonic change sequence: the highest `seq` passed to `upsert` / `remove` / `rebuild` (or +1 per change
   * when none is passed). The owner passes its PostgreSQL change counter, so after `load()` a lower value
   * than the database's means the file misses changes.
   */
  changeSeq: number;
}

export interface SearchOptions {
  /** HNSW only: size of the candidate list (raised to k). Default: the store's efSearch. */
  ef?: number;
  /** HNSW only: force a strategy instead of choosing by filter selectivity (benchmarks and tests). */
  strategy?: 'auto' | 'graph' | 'scan';
  /** HNSW only: extra int8-scan candidates rescored with float32 vectors. Default: the store's setting. */
  rescore?: number;
  /**
   * Product filters, applied by stores that hold product attributes (pgvector, in SQL); the in-memory stores
   * ignore them, so the caller still checks its records.
   */
  product?: ProductFilter | null;
}

export type LoadResult =
  | { status: 'loaded'; meta: VectorStoreMeta; size: number }
  /** No saved index in the directory. */
  | { status: 'missing' }
  /** A saved index built for another embedding version, dimension or format: rebuild. */
  | { status: 'incompatible'; reason: string }
  /** Torn, truncated or altered files: rebuild. */
  | { status: 'corrupt'; reason: string };

export type VectorStoreKind = 'hnsw' | 'usearch' | 'exact' | 'pgvector';

export interface VectorStoreStats {
  kind: VectorStoreKind;
  size: number;
  /** Slots allocated (live + freed-and-reusable). */
  slots: number;
  /** Freed slots waiting for reuse (still in the HNSW graph, marked deleted). */
  deleted: number;
  tags: number;
  tagsets: number;
  /** Estimated bytes held by the index in this process (native graph + vectors + JS side tables; 0 for pgvector). */
  estimatedBytes: number;
}

export interface VectorStore {
  readonly kind: VectorStoreKind;
  readonly dimension: number;
  /** Number of live items (for a shared store: as of its last operation or `refresh`). */
  readonly size: number;
  readonly meta: VectorStoreMeta;
  /** Where save()/load() keep the index; undefined for a memory-only or database store. */
  readonly dir: string | undefined;
  /** True when the index lives outside the process (pgvector): every process sees every change at once. */
  readonly shared: boolean;
  has(id: number): Awaitable<boolean>;
  /**
   * Inserts or replaces items (vector and tags) by id. Applied in order; a later duplicate id wins.
   * A shared store ignores a change whose `seq` is below its `changeSeq` (another process applied it).
   */
  upsert(items: readonly VectorItem[], seq?: number): Awaitable<void>;
  /** Removes items by id; unknown ids are ignored. */
  remove(ids: readonly number[], seq?: number): Awaitable<void>;
  /** The k most similar items, best first, optionally restricted by a tag filter. */
  search(query: Float32Array, k: number, filter?: TagFilter | null, options?: SearchOptions): Awaitable<VectorHit[]>;
  /** Shared stores: re-reads `meta` and `size`, which other processes move on. In-memory stores: nothing to do. */
  refresh(): Promise<void>;
  /**
   * Replaces the whole content with the items of a source (e.g. a PostgreSQL cursor), yielding to the event
   * loop between batches. Searches during a rebuild see a partial index.
   */
  rebuild(items: AsyncIterable<VectorItem | readonly VectorItem[]>, seq: number): Promise<void>;
  /** Writes the index to its directory atomically (a crash leaves the previous save intact); pgvector: nothing to do. */
  save(): Promise<void>;
  /** Reads the index from its directory; on anything but `loaded` the store is left empty for a rebuild. */
  load(): Promise<LoadResult>;
  stats(): VectorStoreStats;
  /** Releases what the process holds (the items stay where they are persisted). */
  close(): Promise<void>;
  /** Deletes the persisted items too (the service is gone). */
  destroy(): Promise<void>;
}

/**
 * Maps cosine similarity c ∈ [−1, 1] linearly to a score (1 + c) / 2 ∈ [0, 1]: identical direction 1,
 * orthogonal 0.5, opposite 0. Linear, so ordering and relative gaps are kept; clamped against rounding.
 */
export function cosineToScore(cosine: number): number {
  const score = (1 + cosine) / 2;
  return score < 0 ? 0 : score > 1 ? 1 : score;
}
