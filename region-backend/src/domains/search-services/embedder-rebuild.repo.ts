/**
 * SQL of a background index rebuild under another embedder: a service keeps serving `pipeline` while its live
 * items are embedded under `next_pipeline`, then one statement switches (docs/search.md, "Changing the
 * embedder"). Item rows do not change: only image_embeddings gains rows under the new pipeline, so the old
 * index stays complete and the new one is complete when it is switched to.
 */
import type { Queryable } from '../data-sets/set.repo.js';

/** Starts (or restarts, towards another pipeline) a rebuild; progress counts from zero. */
export async function startRebuild(db: Queryable, serviceId: string, nextPipeline: string): Promise<void> {
  await db.query('UPDATE search_services SET next_pipeline = $2, n_rebuilt = 0 WHERE id = $1', [serviceId, nextPipeline]);
}

/** The embedder changed back to the one being served: the rebuild is abandoned. */
export async function cancelRebuild(db: Queryable, serviceId: string): Promise<void> {
  await db.query('UPDATE search_services SET next_pipeline = NULL, n_rebuilt = 0 WHERE id = $1', [serviceId]);
}

/** Blob keys of live items without an embedding under `pipeline`, in key order after `afterKey`. */
export async function keysMissingUnder(db: Queryable, serviceId: string, pipeline: string, afterKey: string, limit: number): Promise<string[]> {
  const result = await db.query<{ blob_key: string }>(
    `SELECT DISTINCT i.blob_key FROM search_index_items i
     WHERE i.service_id = $1 AND i.deleted_at IS NULL AND i.blob_key > $3
       AND NOT EXISTS (SELECT 1 FROM image_embeddings e WHERE e.blob_key = i.blob_key AND e.pipeline = $2)
     ORDER BY i.blob_key LIMIT $4`,
    [serviceId, pipeline, afterKey, limit],
  );
  return result.rows.map((r) => r.blob_key);
}

/** Recounts the live items embedded under the rebuild's pipeline (the service view's progress). */
export async function updateRebuildProgress(db: Queryable, serviceId: string, pipeline: string): Promise<void> {
  await db.query(
    `UPDATE search_services s SET n_rebuilt = (
       SELECT count(*) FROM search_index_items i JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
       WHERE i.service_id = $1 AND i.deleted_at IS NULL)
     WHERE s.id = $1 AND s.next_pipeline = $2`,
    [serviceId, pipeline],
  );
}

/**
 * Serves the new pipeline from now on (unless the rebuild was replaced meanwhile): one statement, so every
 * reader sees either the old pipeline or the new one. Processes holding the old index build the new one and
 * keep answering from the old until it is ready (service-indexes.ts).
 */
export async function switchPipeline(db: Queryable, serviceId: string, pipeline: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE search_services SET pipeline = next_pipeline, next_pipeline = NULL, n_rebuilt = 0, indexed_at = now(),
       n_indexed = (SELECT count(*) FROM search_index_items i JOIN image_embeddings e ON e.blob_key = i.blob_key AND e.pipeline = $2
                    WHERE i.service_id = $1 AND i.deleted_at IS NULL)
     WHERE id = $1 AND next_pipeline = $2`,
    [serviceId, pipeline],
  );
  return (result.rowCount ?? 0) > 0;
}
