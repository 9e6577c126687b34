/**
 * How a search service gets its index at start-up: load the saved file when it is intact and current,
 * otherwise rebuild from PostgreSQL (and save, so the next start is fast).
 */
import type pg from 'pg';
import { ExactVectorStore } from './exact-vector-store.js';
import { HnswVectorStore, type HnswParams } from './hnsw-vector-store.js';
import type { PgVectorType } from './pgvector-schema.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import { UsearchVectorStore } from './usearch-vector-store.js';
import type { LoadResult, VectorItem, VectorStore } from './vector-store.js';

/** Where a region keeps its indexes: in each process (hnsw, usearch) or in a pgvector database shared by all. */
export type VectorBackend = { kind: 'hnsw' } | { kind: 'usearch' } | { kind: 'pgvector'; pool: pg.Pool; type: PgVectorType };

export interface CreateVectorStoreOptions {
  /** 'hnsw' (default), 'usearch' (int8 graph, float32 vectors in a file) or 'exact' (brute force: fine up to some tens of thousands of items). */
  kind?: 'hnsw' | 'usearch' | 'exact';
  dimension: number;
  embeddingVersion: string;
  dir?: string;
  params?: Partial<HnswParams>;
  onError?: (err: unknown) => void;
}

export function createVectorStore(options: CreateVectorStoreOptions): VectorStore {
  const { kind = 'hnsw', ...rest } = options;
  if (kind === 'exact') return new ExactVectorStore(rest);
  return kind === 'usearch' ? new UsearchVectorStore(rest) : new HnswVectorStore(rest);
}

/** The store of one search service on the region's backend: `key` names it in a pgvector database. */
export function createServiceStore(backend: VectorBackend, key: string, options: Omit<CreateVectorStoreOptions, 'kind'>): VectorStore {
  if (backend.kind !== 'pgvector') return createVectorStore({ ...options, kind: backend.kind });
  return new PgVectorStore({ pool: backend.pool, key, type: backend.type, dimension: options.dimension, embeddingVersion: options.embeddingVersion });
}

export interface OpenOptions {
  /** The service's change counter in PostgreSQL now; a saved index with another value is rebuilt. */
  changeSeq: number;
  /** All current items of the service, e.g. a PostgreSQL cursor; called only when a rebuild is needed. */
  source: () => AsyncIterable<VectorItem | readonly VectorItem[]>;
  /** Save after a rebuild (default true when the store has a directory). */
  saveAfterRebuild?: boolean;
}

export type OpenOutcome =
  | { action: 'loaded'; size: number }
  | { action: 'rebuilt'; size: number; because: LoadResult | { status: 'stale'; savedSeq: number; currentSeq: number } };

export async function openVectorStore(store: VectorStore, options: OpenOptions): Promise<OpenOutcome> {
  const hasDir = store.dir !== undefined;
  const loaded = hasDir ? await store.load() : ({ status: 'missing' } as const);
  if (loaded.status === 'loaded' && loaded.meta.changeSeq === options.changeSeq) return { action: 'loaded', size: store.size };
  const because =
    loaded.status === 'loaded' ? ({ status: 'stale', savedSeq: loaded.meta.changeSeq, currentSeq: options.changeSeq } as const) : loaded;
  await store.rebuild(options.source(), options.changeSeq);
  if (hasDir && options.saveAfterRebuild !== false) await store.save();
  return { action: 'rebuilt', size: store.size, because };
}
