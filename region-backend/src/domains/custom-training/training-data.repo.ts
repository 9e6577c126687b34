/** SQL over a training set's records and the classifier_features table (what a training run reads and writes). */
import type { Queryable } from '../data-sets/set.repo.js';

export interface LabelDownloads {
  label: string;
  items: number;
  downloaded: number;
  failed: number;
  /** Still pending or downloading. */
  unfinished: number;
}

/** Per label of a set's live records: how many exist, are downloaded, failed, or are not done yet. */
export async function labelDownloads(db: Queryable, setId: string): Promise<LabelDownloads[]> {
  const result = await db.query<LabelDownloads>(
    `SELECT label,
            count(*)::int AS items,
            count(*) FILTER (WHERE status = 'downloaded')::int AS downloaded,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            count(*) FILTER (WHERE status IN ('pending', 'downloading'))::int AS unfinished
     FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL
     GROUP BY label ORDER BY label`,
    [setId],
  );
  return result.rows;
}

/** Distinct stored images of a set's downloaded records that have no classifier features (nor error) yet. */
export async function imagesWithoutFeatures(db: Queryable, setId: string, pipeline: string, limit: number): Promise<string[]> {
  const result = await db.query<{ blob_key: string }>(
    `SELECT DISTINCT r.blob_key FROM data_set_records r
     WHERE r.set_id = $1 AND r.deleted_at IS NULL AND r.status = 'downloaded' AND r.blob_key IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM classifier_features f WHERE f.blob_key = r.blob_key AND f.pipeline = $2)
     ORDER BY r.blob_key LIMIT $3`,
    [setId, pipeline, limit],
  );
  return result.rows.map((r) => r.blob_key);
}

/** Distinct stored images of a set's downloaded records, and how many of them have features or an error. */
export async function featureCoverage(db: Queryable, setId: string, pipeline: string): Promise<{ images: number; done: number }> {
  const result = await db.query<{ images: number; done: number }>(
    `SELECT count(*)::int AS images, count(f.blob_key)::int AS done
     FROM (SELECT DISTINCT blob_key FROM data_set_records
           WHERE set_id = $1 AND deleted_at IS NULL AND status = 'downloaded' AND blob_key IS NOT NULL) r
     LEFT JOIN classifier_features f ON f.blob_key = r.blob_key AND f.pipeline = $2`,
    [setId, pipeline],
  );
  return result.rows[0] ?? { images: 0, done: 0 };
}

/** Stores the features of an image, or why it has none; the first writer wins (features are deterministic). */
export async function saveFeatures(db: Queryable, blobKey: string, pipeline: string, outcome: { features: Buffer } | { error: string }): Promise<void> {
  await db.query(
    `INSERT INTO classifier_features (blob_key, pipeline, features, error) VALUES ($1, $2, $3, $4)
     ON CONFLICT (blob_key, pipeline) DO NOTHING`,
    [blobKey, pipeline, 'features' in outcome ? outcome.features : null, 'error' in outcome ? outcome.error.slice(0, 500) : null],
  );
}

/** Usable images (downloaded, with features) per label. */
export async function usableCounts(db: Queryable, setId: string, pipeline: string): Promise<Map<string, number>> {
  const result = await db.query<{ label: string; n: number }>(
    `SELECT r.label, count(*)::int AS n FROM data_set_records r
     JOIN classifier_features f ON f.blob_key = r.blob_key AND f.pipeline = $2 AND f.features IS NOT NULL
     WHERE r.set_id = $1 AND r.deleted_at IS NULL AND r.status = 'downloaded'
     GROUP BY r.label`,
    [setId, pipeline],
  );
  return new Map(result.rows.map((r) => [r.label, r.n]));
}

export interface TrainingRow {
  id: number;
  label: string;
  features: Buffer;
}

/** Usable records with their features in record-id order, a page after `afterId`. */
export async function trainingRows(db: Queryable, setId: string, pipeline: string, afterId: number, limit: number): Promise<TrainingRow[]> {
  const result = await db.query<TrainingRow>(
    `SELECT r.id, r.label, f.features FROM data_set_records r
     JOIN classifier_features f ON f.blob_key = r.blob_key AND f.pipeline = $2 AND f.features IS NOT NULL
     WHERE r.set_id = $1 AND r.deleted_at IS NULL AND r.status = 'downloaded' AND r.id > $3
     ORDER BY r.id LIMIT $4`,
    [setId, pipeline, afterId, limit],
  );
  return result.rows;
}
