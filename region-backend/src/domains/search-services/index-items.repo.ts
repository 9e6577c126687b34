/**
 * SQL for what a service's index holds (search_index_items) and for stored embeddings (image_embeddings).
 * Only the indexer of a service writes its items, one transaction per batch, holding the service row lock;
 * so within a service, item seq order is commit order and a reader that remembers the last seq it applied
 * never misses a change.
 */
import type pg from 'pg';
import { formatTime } from '@iris/shared';
import { inTransaction } from '../../db/transaction.js';
import type { Queryable } from '../data-sets/set.repo.js';
import { recordEvent } from '../webhooks/webhook-event.repo.js';

export interface ItemUpsert {
  record_id: number;
  blob_key: string;
  tags: string[];
  /** The record's product attributes ('' for image sets), as stored on the record. */
  price: string;
  keywords: string;
  /** The image's embedding has had its first pass only (docs/search.md, "Two passes"). */
  first_pass_only: boolean;
}

/** One item change as a process applies it to its in-memory index. */
export interface ItemChange {
  record_id: number;
  tags: string[];
  price: string;
  keywords: string;
  seq: number;
  /** Null for a removal (tombstone) or, defensively, an item whose embedding is missing. */
  vector: Buffer | null;
}

/** Which passes an embedding has had: `first` (searchable, no features yet) or both (`complete`). */
export type EmbeddingPasses = 'first' | 'complete';

/** The blob keys (of those given) that already have an embedding under the pipeline, with its passes. */
export async function embeddingPasses(db: Queryable, pipeline: string, blobKeys: readonly string[]): Promise<Map<string, EmbeddingPasses>> {
  if (!blobKeys.length) return new Map();
  const result = await db.query<{ blob_key: string; complete: boolean }>(
    'SELECT blob_key, features IS NOT NULL AS complete FROM image_embeddings WHERE pipeline = $1 AND blob_key = ANY($2::text[])',
    [pipeline, blobKeys],
  );
  return new Map(result.rows.map((r) => [r.blob_key, r.complete ? 'complete' : 'first']));
}

const bytesOf = (a: Uint8Array | null): Buffer | null => (a ? Buffer.from(a.buffer, a.byteOffset, a.byteLength) : null);

export interface NewEmbedding {
  blobKey: string;
  vector: Buffer;
  features: Uint8Array | null;
  viewSum?: Buffer | null;
}

/** A new embedding: complete (with its features), or a first pass (no features, its view sum kept). */
export async function insertEmbedding(db: Queryable, blobKey: string, pipeline: string, embedding: Omit<NewEmbedding, 'blobKey'>): Promise<void> {
  await insertEmbeddings(db, pipeline, [{ blobKey, ...embedding }]);
}

/** New embeddings of one pipeline in one statement (those another process stored first are left as they are). */
export async function insertEmbeddings(db: Queryable, pipeline: string, embeddings: readonly NewEmbedding[]): Promise<void> {
  if (!embeddings.length) return;
  await db.query(
    `INSERT INTO image_embeddings (blob_key, pipeline, vector, features, view_sum)
     SELECT t.blob_key, $1, t.vector, t.features, t.view_sum FROM unnest($2::text[], $3::bytea[], $4::bytea[], $5::bytea[]) AS t(blob_key, vector, features, view_sum)
     ON CONFLICT DO NOTHING`,
    [
      pipeline,
      embeddings.map((e) => e.blobKey),
      embeddings.map((e) => e.vector),
      embeddings.map((e) => bytesOf(e.features)),
      embeddings.map((e) => (e.features ? null : (e.viewSum ?? null))),
    ],
  );
}

export interface SecondPass {
  blobKey: string;
  /** Null keeps the first pass's vector. */
  vector: Buffer | null;
  features: Uint8Array;
}

/**
 * Completes a first-pass embedding with its second pass (a null vector keeps the first pass's); a no-op when
 * another process completed it first.
 */
export async function completeEmbedding(db: Queryable, blobKey: string, pipeline: string, vector: Buffer | null, features: Uint8Array): Promise<void> {
  await completeEmbeddings(db, pipeline, [{ blobKey, vector, features }]);
}

/** completeEmbedding for several embeddings of one pipeline, in one statement. */
export async function completeEmbeddings(db: Queryable, pipeline: string, passes: readonly SecondPass[]): Promise<void> {
  if (!passes.length) return;
  await db.query(
    `UPDATE image_embeddings e SET vector = COALESCE(t.vector, e.vector), features = t.features, view_sum = NULL
     FROM unnest($2::text[], $3::bytea[], $4::bytea[]) AS t(blob_key, vector, features)
     WHERE e.blob_key = t.blob_key AND e.pipeline = $1 AND e.features IS NULL`,
    [pipeline, passes.map((p) => p.blobKey), passes.map((p) => p.vector), passes.map((p) => bytesOf(p.features))],
  );
}

/** A service's item that still holds a first-pass vector, with its embedding's state. */
export interface FirstPassItem {
  record_id: number;
  blob_key: string;
  /** The embedding's second pass is done (by this service or another sharing the image). */
  complete: boolean;
  /** The first pass's view sum (float32 bytes), while not complete. */
  view_sum: Buffer | null;
}

/** Up to `limit` of the service's live items that hold a first-pass vector, in record order. */
export async function firstPassItems(db: Queryable, serviceId: string, pipeline: string, limit: number): Promise<FirstPassItem[]> {
  const result = await db.query<FirstPassItem & { record_id: string }>(
    `SELECT i.record_id, i.blob_key, e.features IS NOT NULL AS complete, e.view_sum
     FROM search_index_items i
     JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
     WHERE i.service_id = $1 AND i.first_pass_only AND i.deleted_at IS NULL
     ORDER BY i.record_id LIMIT $3`,
    [serviceId, pipeline, limit],
  );
  return result.rows.map((r) => ({ ...r, record_id: Number(r.record_id) }));
}

/**
 * Takes the completed vectors of these items into the service's index: each item (still showing that image)
 * gets a new seq, in one transaction holding the service row lock, as applyItemBatch does.
 */
export async function takeCompletedItems(pool: pg.Pool, serviceId: string, items: readonly { record_id: number; blob_key: string }[]): Promise<number> {
  if (!items.length) return 0;
  return inTransaction(pool, async (client) => {
    await client.query('SELECT 1 FROM search_services WHERE id = $1 FOR UPDATE', [serviceId]);
    const updated = await client.query<{ seq: number }>(
      `UPDATE search_index_items i SET first_pass_only = false, seq = nextval('search_index_item_seq')
       FROM unnest($2::bigint[], $3::text[]) AS t(record_id, blob_key)
       WHERE i.service_id = $1 AND i.record_id = t.record_id AND i.blob_key = t.blob_key AND i.first_pass_only AND i.deleted_at IS NULL
       RETURNING i.seq`,
      [serviceId, items.map((i) => i.record_id), items.map((i) => i.blob_key)],
    );
    const top = updated.rows.reduce((m, r) => Math.max(m, Number(r.seq)), 0);
    if (top) await client.query('UPDATE search_services SET index_seq = GREATEST(index_seq, $2) WHERE id = $1', [serviceId, top]);
    return updated.rowCount ?? 0;
  });
}

/** Stored local features of a service's live items, by record id (records without any are left out). */
export async function itemFeatures(db: Queryable, serviceId: string, pipeline: string, recordIds: readonly number[]): Promise<Map<number, Uint8Array>> {
  if (!recordIds.length) return new Map();
  const result = await db.query<{ record_id: string; features: Buffer }>(
    `SELECT i.record_id, e.features FROM search_index_items i
     JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
     WHERE i.service_id = $1 AND i.record_id = ANY($3::bigint[]) AND i.deleted_at IS NULL AND e.features IS NOT NULL`,
    [serviceId, pipeline, recordIds],
  );
  return new Map(result.rows.map((r) => [Number(r.record_id), new Uint8Array(r.features)]));
}

export interface BatchResult {
  /** False when the service is gone or another indexer moved it on (nothing applied). */
  applied: boolean;
  /** Items whose index content changed (inserted, updated or removed). */
  changed: number;
}

/**
 * Applies one batch of the set's changes to the service's items, and moves the service on to `toSourceSeq`,
 * in one transaction. Unchanged items (same image, tags, price and keywords) keep their seq, so meta-only
 * updates do not touch the index.
 */
export async function applyItemBatch(
  pool: pg.Pool,
  input: { serviceId: string; fromSourceSeq: number; toSourceSeq: number; upserts: ItemUpsert[]; removals: number[] },
): Promise<BatchResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ source_seq: number }>('SELECT source_seq FROM search_services WHERE id = $1 FOR UPDATE', [input.serviceId]);
    if (locked.rows[0]?.source_seq !== input.fromSourceSeq) {
      await client.query('ROLLBACK');
      return { applied: false, changed: 0 };
    }
    const seqs: number[] = [];
    if (input.upserts.length) {
      const upserted = await client.query<{ seq: number }>(
        `INSERT INTO search_index_items AS i (service_id, record_id, blob_key, tags, price, keywords, first_pass_only, seq)
         SELECT $1, v.record_id, v.blob_key, v.tags, v.price, v.keywords, v.first_pass_only, nextval('search_index_item_seq')
         FROM jsonb_to_recordset($2::jsonb) AS v(record_id bigint, blob_key text, tags text[], price text, keywords text, first_pass_only boolean)
         ON CONFLICT (service_id, record_id) DO UPDATE
           SET blob_key = EXCLUDED.blob_key, tags = EXCLUDED.tags, price = EXCLUDED.price, keywords = EXCLUDED.keywords,
               first_pass_only = EXCLUDED.first_pass_only, seq = EXCLUDED.seq, deleted_at = NULL
           WHERE (i.blob_key, i.tags, i.price, i.keywords, i.first_pass_only, i.deleted_at) IS DISTINCT FROM
                 (EXCLUDED.blob_key, EXCLUDED.tags, EXCLUDED.price, EXCLUDED.keywords, EXCLUDED.first_pass_only, NULL)
         RETURNING i.seq`,
        [input.serviceId, JSON.stringify(input.upserts)],
      );
      for (const row of upserted.rows) seqs.push(row.seq);
    }
    if (input.removals.length) {
      const removed = await client.query<{ seq: number }>(
        `UPDATE search_index_items SET deleted_at = now(), seq = nextval('search_index_item_seq')
         WHERE service_id = $1 AND record_id = ANY($2::bigint[]) AND deleted_at IS NULL
         RETURNING seq`,
        [input.serviceId, input.removals],
      );
      for (const row of removed.rows) seqs.push(row.seq);
    }
    const changed = seqs.length;
    await client.query(
      `UPDATE search_services SET
         source_seq = $2,
         index_seq = GREATEST(index_seq, $3),
         n_indexed = CASE WHEN $4 THEN (SELECT count(*) FROM search_index_items WHERE service_id = $1 AND deleted_at IS NULL) ELSE n_indexed END,
         indexed_at = CASE WHEN $4 THEN now() ELSE indexed_at END,
         updated_at = CASE WHEN $4 THEN now() ELSE updated_at END
       WHERE id = $1`,
      [input.serviceId, input.toSourceSeq, changed ? Math.max(...seqs) : 0, changed > 0],
    );
    await client.query('COMMIT');
    return { applied: true, changed };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Starts the service over under a new pipeline: every item becomes a tombstone and the set is read again
 * from the start (its records are embedded again under the new pipeline).
 */
export async function restartUnderPipeline(pool: pg.Pool, serviceId: string, pipeline: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT 1 FROM search_services WHERE id = $1 FOR UPDATE', [serviceId]);
    const removed = await client.query<{ seq: number }>(
      `UPDATE search_index_items SET deleted_at = now(), seq = nextval('search_index_item_seq')
       WHERE service_id = $1 AND deleted_at IS NULL RETURNING seq`,
      [serviceId],
    );
    const top = removed.rows.reduce((m, r) => Math.max(m, r.seq), 0);
    await client.query(
      `UPDATE search_services SET pipeline = $2, source_seq = 0, n_indexed = 0, index_seq = GREATEST(index_seq, $3), caught_up_at = NULL
       WHERE id = $1`,
      [serviceId, pipeline, top],
    );
  });
}

/** Live items whose record no longer exists (purged after the indexer last caught up): returns their ids. */
export async function orphanedItems(db: Queryable, serviceId: string): Promise<number[]> {
  const result = await db.query<{ record_id: number }>(
    `SELECT i.record_id FROM search_index_items i
     WHERE i.service_id = $1 AND i.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM data_set_records r WHERE r.id = i.record_id AND r.deleted_at IS NULL AND r.status = 'downloaded')`,
    [serviceId],
  );
  return result.rows.map((r) => r.record_id);
}

/**
 * Notes that the index holds every change of its set. When items changed since the last time (or it never
 * caught up), the `search_service.indexed` event is recorded in the same transaction.
 */
export async function markCaughtUp(pool: pg.Pool, serviceId: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const result = await client.query<{ account_id: string; n_indexed: number; caught_up_at: Date; changed: boolean }>(
      `UPDATE search_services s SET caught_up_at = now()
       FROM (SELECT id, caught_up_at IS NULL OR indexed_at > caught_up_at AS changed FROM search_services WHERE id = $1 FOR UPDATE) before
       WHERE s.id = before.id
       RETURNING s.account_id, s.n_indexed, s.caught_up_at, before.changed`,
      [serviceId],
    );
    const row = result.rows[0];
    if (!row?.changed) return;
    await recordEvent(client, {
      accountId: Number(row.account_id),
      type: 'search_service.indexed',
      data: { service_id: serviceId, n_indexed: Number(row.n_indexed), indexed_at: formatTime(row.caught_up_at) },
    });
  });
}

/** Drops item tombstones older than `before`, remembering the highest seq dropped. */
export async function purgeItemTombstones(db: Queryable, serviceId: string, before: Date): Promise<number> {
  const result = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM search_index_items WHERE service_id = $1 AND deleted_at IS NOT NULL AND deleted_at < $2 RETURNING seq
     ), mark AS (
       UPDATE search_services SET purged_seq = GREATEST(purged_seq, (SELECT max(seq) FROM gone))
       WHERE id = $1 AND EXISTS (SELECT 1 FROM gone)
     )
     SELECT count(*)::int AS n FROM gone`,
    [serviceId, before],
  );
  return result.rows[0]?.n ?? 0;
}

/** Item changes after `afterSeq`, oldest first, with their vectors under the pipeline. */
export async function itemChanges(db: Queryable, serviceId: string, pipeline: string, afterSeq: number, limit: number): Promise<ItemChange[]> {
  const result = await db.query<ItemChange>(
    `SELECT i.record_id, i.tags, i.price, i.keywords, i.seq, CASE WHEN i.deleted_at IS NULL THEN e.vector END AS vector
     FROM search_index_items i
     LEFT JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
     WHERE i.service_id = $1 AND i.seq > $3
     ORDER BY i.seq LIMIT $4`,
    [serviceId, pipeline, afterSeq, limit],
  );
  return result.rows;
}

/** Live items in record order after `afterRecordId`, with vectors (for a rebuild; run inside one snapshot). */
export async function liveItems(db: Queryable, serviceId: string, pipeline: string, afterRecordId: number, limit: number): Promise<ItemChange[]> {
  const result = await db.query<ItemChange>(
    `SELECT i.record_id, i.tags, i.price, i.keywords, i.seq, e.vector
     FROM search_index_items i
     JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
     WHERE i.service_id = $1 AND i.deleted_at IS NULL AND i.record_id > $3
     ORDER BY i.record_id LIMIT $4`,
    [serviceId, pipeline, afterRecordId, limit],
  );
  return result.rows;
}
