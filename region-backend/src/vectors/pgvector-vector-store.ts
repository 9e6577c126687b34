/**
 * Vector store on PostgreSQL with pgvector: the items of one index (search service) are rows of its own
 * partition (see pgvector-schema.ts), searched through the partition's HNSW index with cosine distance.
 * Nothing is held in process memory but the index's number, change sequence and size, so every process of a
 * region shares one copy and sees each change as soon as it is committed.
 *
 * - Writes: each `upsert` / `remove` / `rebuild` is one transaction that first locks the index's row in
 *   `iris_vector_indexes`; a change whose `seq` is below the row's `change_seq` was applied by another process
 *   and is skipped, so processes catching up from the same change feed never put back an older state.
 * - Searches: `hnsw.ef_search` (raised to k, at most pgvector's 1000) and `hnsw.iterative_scan =
 *   relaxed_order`, so that filtered queries (and k above ef_search) keep scanning the graph until k rows
 *   pass the filter or `hnsw.max_scan_tuples` rows were visited; rows are re-sorted by distance (relaxed
 *   order may swap neighbours). Tag and product filters are WHERE clauses (pgvector-filter-sql.ts); the
 *   planner may also answer a selective filter from the GIN index with an exact sort.
 */
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import { productFilterSql, SqlParams, tagFilterSql } from './pgvector-filter-sql.js';
import { createPartition, dropIndex, ensurePgVectorSchema, partitionTable, vectorTable, type PgVectorType } from './pgvector-schema.js';
import { checkK, prepareItems, unitVector } from './store-state.js';
import type { TagFilter } from './tag-filter.js';
import {
  cosineToScore,
  type LoadResult,
  type SearchOptions,
  type VectorHit,
  type VectorItem,
  type VectorStore,
  type VectorStoreMeta,
  type VectorStoreStats,
} from './vector-store.js';

export interface PgVectorParams {
  /** HNSW links per node (table-wide: fixed when the table is created). */
  m: number;
  /** HNSW build candidate list (table-wide). */
  efConstruction: number;
  /** Candidate list per query (raised to k, at most 1000). */
  efSearch: number;
  /** Most rows an iterative scan visits before it gives up on filling k (pgvector's default 20 000). */
  maxScanTuples: number;
}

export const DEFAULT_PGVECTOR_PARAMS: PgVectorParams = { m: 16, efConstruction: 128, efSearch: 256, maxScanTuples: 20_000 };

export interface PgVectorStoreOptions {
  /** The vector database (the region's own database unless IRIS_VECTOR_DATABASE_URL names another). */
  pool: pg.Pool;
  /** Identity of this index in the database (the search service id). */
  key: string;
  dimension: number;
  embeddingVersion: string;
  /** Column type: `vector` (float32, 4 bytes per dimension) or `halfvec` (float16, 2 bytes). Default vector. */
  type?: PgVectorType;
  params?: Partial<PgVectorParams>;
}

/** Items per INSERT statement (a statement of 500 × 256 dimensions carries about 2.5 MB of text). */
const INSERT_BATCH = 500;

interface IndexRow {
  no: string;
  embedding_version: string;
  dimension: number;
  type: string;
  change_seq: string;
  size: string;
}

export class PgVectorStore implements VectorStore {
  readonly kind = 'pgvector' as const;
  readonly shared = true;
  readonly dir = undefined;
  readonly dimension: number;
  readonly type: PgVectorType;
  readonly params: PgVectorParams;
  private readonly table: string;
  private indexNo: number | null = null;
  private state = { changeSeq: 0, size: 0 };
  /** Mutations of this instance run one after the other, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: PgVectorStoreOptions) {
    this.dimension = options.dimension;
    this.type = options.type ?? 'vector';
    this.table = vectorTable({ dimension: this.dimension, type: this.type });
    this.params = { ...DEFAULT_PGVECTOR_PARAMS, ...options.params };
    if (!Number.isInteger(this.params.efSearch) || this.params.efSearch < 1 || this.params.efSearch > 1000) {
      throw new RangeError('pgvector efSearch must be an integer from 1 to 1000');
    }
    if (!Number.isInteger(this.params.maxScanTuples) || this.params.maxScanTuples < 1) throw new RangeError('pgvector maxScanTuples must be a positive integer');
  }

  get size(): number {
    return this.state.size;
  }

  get meta(): VectorStoreMeta {
    return { embeddingVersion: this.options.embeddingVersion, dimension: this.dimension, changeSeq: this.state.changeSeq };
  }

  /** The partition holding this index's rows (null before the index exists). */
  get partition(): string | null {
    return this.indexNo === null ? null : partitionTable(this.table, this.indexNo);
  }

  async has(id: number): Promise<boolean> {
    this.assertOpen();
    const no = await this.knownIndex();
    if (no === null) return false;
    const result = await this.options.pool.query(`SELECT 1 FROM ${this.table} WHERE index_no = $1 AND id = $2`, [no, id]);
    return result.rows.length > 0;
  }

  upsert(items: readonly VectorItem[], seq?: number): Promise<void> {
    this.assertOpen();
    checkSeq(seq);
    const prepared = lastOccurrences(prepareItems(items, this.dimension).map((p, i) => ({ ...p, product: items[i]!.product })));
    return this.mutate(seq, async (client, no) => this.insert(client, no, prepared));
  }

  remove(ids: readonly number[], seq?: number): Promise<void> {
    this.assertOpen();
    checkSeq(seq);
    const list = ids.filter((id) => Number.isSafeInteger(id) && id >= 0);
    return this.mutate(seq, async (client, no) => {
      if (!list.length) return 0;
      const deleted = await client.query(`DELETE FROM ${this.table} WHERE index_no = $1 AND id = ANY($2::bigint[])`, [no, list]);
      return -(deleted.rowCount ?? 0);
    });
  }

  async search(query: Float32Array, k: number, filter?: TagFilter | null, options: SearchOptions = {}): Promise<VectorHit[]> {
    const rows = await this.run<{ id: string; distance: number }>(query, k, filter, options, false);
    return rows
      .map((row) => ({ id: Number(row.id), score: cosineToScore(1 - Number(row.distance)) }))
      .sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** PostgreSQL's plan for a search (EXPLAIN): shows whether the HNSW index is used. */
  async explain(query: Float32Array, k: number, filter?: TagFilter | null, options: SearchOptions = {}): Promise<string> {
    const rows = await this.run<{ 'QUERY PLAN': string }>(query, k, filter, options, true);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  private async run<R extends pg.QueryResultRow>(query: Float32Array, k: number, filter: TagFilter | null | undefined, options: SearchOptions, explain: boolean): Promise<R[]> {
    this.assertOpen();
    const unit = unitVector(query, this.dimension);
    if (checkK(k) === 0) return [];
    const no = await this.knownIndex();
    if (no === null) return [];
    const params = new SqlParams();
    const q = params.add(vectorText(unit));
    const where = [`index_no = ${params.add(no)}`];
    if (filter) where.push(`(${tagFilterSql(filter, params)})`);
    if (options.product) where.push(...productFilterSql(options.product, params));
    const ef = Math.min(1000, Math.max(options.ef ?? this.params.efSearch, k));
    const maxScan = Math.max(this.params.maxScanTuples, k * 4);
    return inTransaction(this.options.pool, async (client) => {
      // Integers checked above: safe to write into the statement (SET takes no parameters).
      await client.query(`SET LOCAL hnsw.ef_search = ${ef}; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.max_scan_tuples = ${maxScan}`);
      const result = await client.query<R>(
        `${explain ? 'EXPLAIN ' : ''}SELECT id, embedding <=> ${q}::${this.type} AS distance FROM ${this.table}
         WHERE ${where.join(' AND ')}
         ORDER BY embedding <=> ${q}::${this.type} LIMIT ${params.add(k)}`,
        params.values,
      );
      return result.rows;
    });
  }

  /** Replaces the whole content in one transaction: searches see the old items until it commits. */
  rebuild(items: AsyncIterable<VectorItem | readonly VectorItem[]>, seq: number): Promise<void> {
    this.assertOpen();
    checkSeq(seq);
    return this.serial(async () => {
      await this.schema();
      const state = await inTransaction(this.options.pool, async (client) => {
        const row = await this.lockRow(client);
        const no = Number(row.no);
        await client.query(`DELETE FROM ${partitionTable(this.table, no)}`);
        let size = 0;
        for await (const batch of items) {
          const list = Array.isArray(batch) ? (batch as readonly VectorItem[]) : [batch as VectorItem];
          const prepared = lastOccurrences(prepareItems(list, this.dimension).map((p, i) => ({ ...p, product: list[i]!.product })));
          size += await this.insert(client, no, prepared);
        }
        return this.writeRow(client, no, seq, size, true);
      });
      this.remember(state);
    });
  }

  /** Every change is committed when its promise resolves: there is nothing to save. */
  async save(): Promise<void> {
    this.assertOpen();
    await this.queue;
  }

  async load(): Promise<LoadResult> {
    this.assertOpen();
    return this.serial(async () => {
      await this.schema();
      const row = await this.readRow(this.options.pool);
      if (!row) {
        this.indexNo = null;
        this.state = { changeSeq: 0, size: 0 };
        return { status: 'missing' } as const;
      }
      const problem = this.incompatibility(row);
      if (problem) {
        // Rows of another embedding version can never serve this one: drop them, the owner rebuilds.
        await inTransaction(this.options.pool, (client) => dropIndex(client, this.table, Number(row.no)));
        this.indexNo = null;
        this.state = { changeSeq: 0, size: 0 };
        return { status: 'incompatible', reason: problem } as const;
      }
      this.remember(row);
      return { status: 'loaded', meta: this.meta, size: this.size } as const;
    });
  }

  async refresh(): Promise<void> {
    this.assertOpen();
    await this.schema();
    const row = await this.readRow(this.options.pool);
    if (row && !this.incompatibility(row)) this.remember(row);
  }

  stats(): VectorStoreStats {
    return { kind: this.kind, size: this.size, slots: this.size, deleted: 0, tags: 0, tagsets: 0, estimatedBytes: 0 };
  }

  /** Bytes of this index in the database: rows, TOAST, the HNSW and GIN indexes of its partition. */
  async databaseBytes(): Promise<number> {
    const partition = this.partition;
    if (!partition) return 0;
    const result = await this.options.pool.query<{ bytes: string }>('SELECT pg_total_relation_size($1::regclass) AS bytes', [partition]);
    return Number(result.rows[0]!.bytes);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue.catch(() => undefined);
    this.closed = true;
  }

  async destroy(): Promise<void> {
    this.assertOpen();
    await this.serial(async () => {
      await this.schema();
      await inTransaction(this.options.pool, async (client) => {
        const row = await this.readRow(client, true);
        if (row) await dropIndex(client, this.table, Number(row.no));
      });
    });
    await this.close();
  }

  /** Inserts or replaces items; returns how many were new (the index row is locked: no one else writes). */
  private async insert(client: pg.PoolClient, no: number, items: readonly Prepared[]): Promise<number> {
    let inserted = 0;
    for (let from = 0; from < items.length; from += INSERT_BATCH) {
      const batch = items.slice(from, from + INSERT_BATCH);
      const existing = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE index_no = $1 AND id = ANY($2::bigint[])`, [
        no,
        batch.map((item) => item.id),
      ]);
      const rows = batch.map((item) => ({
        id: item.id,
        tags: item.tags,
        price: item.product?.price ?? null,
        words: item.product?.words ?? [],
        keywords: item.product?.text ?? '',
        embedding: vectorText(item.unit),
      }));
      await client.query(
        `INSERT INTO ${this.table} AS t (index_no, id, tags, price, words, keywords, embedding)
         SELECT $1, v.id, v.tags, v.price, v.words, v.keywords, v.embedding::${this.type}
         FROM jsonb_to_recordset($2::jsonb) AS v(id bigint, tags text[], price double precision, words text[], keywords text, embedding text)
         ON CONFLICT (index_no, id) DO UPDATE
           SET tags = EXCLUDED.tags, price = EXCLUDED.price, words = EXCLUDED.words, keywords = EXCLUDED.keywords, embedding = EXCLUDED.embedding`,
        [no, JSON.stringify(rows)],
      );
      inserted += batch.length - existing.rows[0]!.n;
    }
    return inserted;
  }

  /** Runs one change in a transaction holding the index row; `work` returns the change in live items. */
  private mutate(seq: number | undefined, work: (client: pg.PoolClient, no: number) => Promise<number>): Promise<void> {
    return this.serial(async () => {
      await this.schema();
      const state = await inTransaction(this.options.pool, async (client) => {
        const row = await this.lockRow(client);
        if (seq !== undefined && seq < Number(row.change_seq)) return row;
        const delta = await work(client, Number(row.no));
        return this.writeRow(client, Number(row.no), seq, delta, false);
      });
      this.remember(state);
    });
  }

  /** The index row, locked; created (with its partition) when missing, reset when of another version. */
  private async lockRow(client: pg.PoolClient): Promise<IndexRow> {
    const { key, embeddingVersion } = this.options;
    const created = await client.query<{ no: string }>(
      `INSERT INTO iris_vector_indexes (key, embedding_version, dimension, type) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO NOTHING RETURNING no`,
      [key, embeddingVersion, this.dimension, this.type],
    );
    if (created.rows[0]) await createPartition(client, this.table, Number(created.rows[0].no));
    const row = (await this.readRow(client, true))!;
    if (this.incompatibility(row)) {
      // This store's owner moved to another embedding version (or vector type): start the index over.
      await dropIndex(client, vectorTable({ dimension: row.dimension, type: row.type as PgVectorType }), Number(row.no));
      return this.lockRow(client);
    }
    return row;
  }

  private async writeRow(client: pg.PoolClient, no: number, seq: number | undefined, size: number, replace: boolean): Promise<IndexRow> {
    const result = await client.query<IndexRow>(
      `UPDATE iris_vector_indexes SET
         change_seq = CASE WHEN $2::bigint IS NULL THEN change_seq + 1 WHEN $4 THEN $2 ELSE GREATEST(change_seq, $2) END,
         size = CASE WHEN $4 THEN $3 ELSE size + $3 END
       WHERE no = $1
       RETURNING no, embedding_version, dimension, type, change_seq, size`,
      [no, seq ?? null, size, replace],
    );
    return result.rows[0]!;
  }

  private async readRow(db: pg.Pool | pg.PoolClient, lock = false): Promise<IndexRow | undefined> {
    const result = await db.query<IndexRow>(
      `SELECT no, embedding_version, dimension, type, change_seq, size FROM iris_vector_indexes WHERE key = $1${lock ? ' FOR UPDATE' : ''}`,
      [this.options.key],
    );
    return result.rows[0];
  }

  private incompatibility(row: IndexRow): string | null {
    if (row.embedding_version !== this.options.embeddingVersion) {
      return `embedding version ${row.embedding_version}, expected ${this.options.embeddingVersion}`;
    }
    if (row.dimension !== this.dimension || row.type !== this.type) return `${row.type}(${row.dimension}), expected ${this.type}(${this.dimension})`;
    return null;
  }

  private remember(row: IndexRow): void {
    this.indexNo = Number(row.no);
    this.state = { changeSeq: Number(row.change_seq), size: Number(row.size) };
  }

  /** The index number, looked up once if another process created the index. */
  private async knownIndex(): Promise<number | null> {
    if (this.indexNo === null) await this.refresh();
    return this.indexNo;
  }

  private schema(): Promise<void> {
    return ensurePgVectorSchema(this.options.pool, { dimension: this.dimension, type: this.type, m: this.params.m, efConstruction: this.params.efConstruction });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('vector store is closed');
  }
}

type Prepared = ReturnType<typeof prepareItems>[number] & { product?: VectorItem['product'] };

function checkSeq(seq: number | undefined): void {
  if (seq !== undefined && (!Number.isSafeInteger(seq) || seq < 0)) throw new RangeError('seq must be a non-negative integer');
}

/** Within one batch the last occurrence of an id wins (one INSERT cannot update a row twice). */
function lastOccurrences<T extends { id: number }>(items: readonly T[]): T[] {
  const byId = new Map<number, T>();
  for (const item of items) {
    byId.delete(item.id);
    byId.set(item.id, item);
  }
  return [...byId.values()];
}

/** pgvector's text form; 9 significant digits give back the same float32. */
function vectorText(v: Float32Array): string {
  let text = '[';
  for (let d = 0; d < v.length; d++) text += (d ? ',' : '') + v[d]!.toPrecision(9);
  return `${text}]`;
}
