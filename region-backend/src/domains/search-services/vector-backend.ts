/**
 * The region's vector backend from its configuration: HNSW indexes in each process (`IRIS_VECTOR_STORE=hnsw`,
 * default), or pgvector (`IRIS_VECTOR_STORE=pgvector`) in the region's own database or, with
 * `IRIS_VECTOR_DATABASE_URL`, in a database of its own (its pool is opened here and closed with the app).
 */
import pg from 'pg';
import type { VectorConfig } from '../../config.js';
import type { VectorBackend } from '../../vectors/open-vector-store.js';

/** Connections to a separate vector database per process (searches and index writes). */
const VECTOR_POOL_SIZE = 10;

export function vectorBackend(config: VectorConfig, regionDatabaseUrl: string, regionPool: pg.Pool): { backend: VectorBackend; close: () => Promise<void> } {
  if (config.store === 'hnsw') return { backend: { kind: 'hnsw' }, close: async () => {} };
  if (config.databaseUrl === regionDatabaseUrl) return { backend: { kind: 'pgvector', pool: regionPool, type: config.type }, close: async () => {} };
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: VECTOR_POOL_SIZE });
  return { backend: { kind: 'pgvector', pool, type: config.type }, close: () => pool.end() };
}
