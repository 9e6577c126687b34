/**
 * Tables of the pgvector store, created on first use in the vector database:
 *
 * - `iris_vector_indexes`: one row per index (search service): its number, embedding version, dimension,
 *   vector type, change sequence and live item count. Writers lock this row, so changes of one index are
 *   applied one transaction at a time whichever process sends them.
 * - `iris_vectors_<type><dimension>` (e.g. `iris_vectors_vector256`): the items, LIST-partitioned by index
 *   number, one partition per index. The partitioned table carries an HNSW index (cosine) and a GIN index on
 *   `tags`, so every partition gets its own HNSW graph: a query of one service searches only that service's
 *   graph, with no filter on the service.
 */
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

export type PgVectorType = 'vector' | 'halfvec';

export interface PgVectorTableOptions {
  dimension: number;
  type: PgVectorType;
  /** HNSW build parameters of the table (fixed when the table is created). */
  m: number;
  efConstruction: number;
}

/** pgvector's HNSW limits: 2 000 dimensions for `vector`, 4 000 for `halfvec`. */
const MAX_DIMENSION: Record<PgVectorType, number> = { vector: 2000, halfvec: 4000 };
/** Serialises schema changes of concurrent processes (CREATE … IF NOT EXISTS alone can race). */
const SCHEMA_LOCK = 7_301_801;

export function vectorTable(options: Pick<PgVectorTableOptions, 'dimension' | 'type'>): string {
  if (!Number.isInteger(options.dimension) || options.dimension < 1 || options.dimension > MAX_DIMENSION[options.type]) {
    throw new RangeError(`pgvector ${options.type} indexes take 1 to ${MAX_DIMENSION[options.type]} dimensions, not ${options.dimension}`);
  }
  return `iris_vectors_${options.type}${options.dimension}`;
}

export function partitionTable(table: string, indexNo: number): string {
  if (!Number.isSafeInteger(indexNo) || indexNo < 1) throw new RangeError('index number must be a positive integer');
  return `${table}_${indexNo}`;
}

const ready = new WeakMap<pg.Pool, Map<string, Promise<void>>>();

/** Creates the extension and tables once per pool and table (concurrent callers share the promise). */
export function ensurePgVectorSchema(pool: pg.Pool, options: PgVectorTableOptions): Promise<void> {
  const table = vectorTable(options);
  let tables = ready.get(pool);
  if (!tables) ready.set(pool, (tables = new Map()));
  let done = tables.get(table);
  if (!done) {
    done = createSchema(pool, table, options);
    tables.set(table, done);
    done.catch(() => tables.delete(table));
  }
  return done;
}

async function createSchema(pool: pg.Pool, table: string, options: PgVectorTableOptions): Promise<void> {
  const { type, dimension, m, efConstruction } = options;
  if (!Number.isInteger(m) || m < 2 || m > 100) throw new RangeError('pgvector m must be an integer from 2 to 100');
  if (!Number.isInteger(efConstruction) || efConstruction < 4 || efConstruction > 1000) {
    throw new RangeError('pgvector efConstruction must be an integer from 4 to 1000');
  }
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (err) {
      throw new Error(`the vector database has no usable pgvector extension (CREATE EXTENSION vector: ${(err as Error).message})`, { cause: err });
    }
    await client.query(`
      CREATE TABLE IF NOT EXISTS iris_vector_indexes (
        no bigserial PRIMARY KEY,
        key text NOT NULL UNIQUE,
        embedding_version text NOT NULL,
        dimension integer NOT NULL,
        type text NOT NULL,
        change_seq bigint NOT NULL DEFAULT 0,
        size bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${table} (
        index_no bigint NOT NULL,
        id bigint NOT NULL,
        tags text[] NOT NULL,
        price double precision,
        words text[] NOT NULL DEFAULT '{}',
        keywords text NOT NULL DEFAULT '',
        embedding ${type}(${dimension}) NOT NULL,
        PRIMARY KEY (index_no, id)
      ) PARTITION BY LIST (index_no)`);
    await client.query(
      `CREATE INDEX IF NOT EXISTS ${table}_embedding ON ${table} USING hnsw (embedding ${type}_cosine_ops)
       WITH (m = ${m}, ef_construction = ${efConstruction})`,
    );
    await client.query(`CREATE INDEX IF NOT EXISTS ${table}_tags ON ${table} USING gin (tags)`);
  });
}

/** Creates the partition of one index (inside the caller's transaction; it inherits both indexes). */
export async function createPartition(client: pg.PoolClient, table: string, indexNo: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
  await client.query(`CREATE TABLE IF NOT EXISTS ${partitionTable(table, indexNo)} PARTITION OF ${table} FOR VALUES IN (${indexNo})`);
}

/** Drops an index's partition and row (inside the caller's transaction). */
export async function dropIndex(client: pg.PoolClient, table: string, indexNo: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
  await client.query(`DROP TABLE IF EXISTS ${partitionTable(table, indexNo)}`);
  await client.query('DELETE FROM iris_vector_indexes WHERE no = $1', [indexNo]);
}
