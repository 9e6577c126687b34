/**
 * The region's vector backend from its configuration: HNSW indexes in each process (`IRIS_VECTOR_STORE=hnsw`,
 * default), quantised usearch indexes in each process (`IRIS_VECTOR_STORE=usearch`), or pgvector (`IRIS_VECTOR_STORE=pgvector`) in the region's own database or, with
 * `IRIS_VECTOR_DATABASE_URL`, in a database of its own (its pool is opened here and closed with the app).
 */
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { VectorConfig } from '../../config.js';
import type { VectorBackend } from '../../vectors/open-vector-store.js';

/** Connections to a separate vector database per process (searches and index writes). */
const VECTOR_POOL_SIZE = 10;

export function vectorBackend(
  config: VectorConfig,
  region: { databaseUrl: string; pool: pg.Pool },
  log: FastifyBaseLogger,
): { backend: VectorBackend; close: () => Promise<void> } {
  if (config.store !== 'pgvector') return { backend: { kind: config.store }, close: async () => {} };
  if (config.databaseUrl === region.databaseUrl) return { backend: { kind: 'pgvector', pool: region.pool, type: config.type }, close: async () => {} };
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: VECTOR_POOL_SIZE });
  pool.on('error', (err) => log.error({ err }, 'idle vector database client failed'));
  return { backend: { kind: 'pgvector', pool, type: config.type }, close: () => pool.end() };
}
