/** SQL for custom_services and custom_service_models. */
import type pg from 'pg';
import { formatTime } from '@iris/shared';
import { inTransaction } from '../../db/transaction.js';
import type { Queryable } from '../data-sets/set.repo.js';
import { recordEvent, type WebhookEvent } from '../webhooks/webhook-event.repo.js';

export type CustomServiceStatus = 'pending' | 'preparing' | 'running' | 'failed' | 'deleted';
export type TrainingStage = 'queued' | 'downloading' | 'embedding' | 'training' | 'done' | 'failed';

/** Held-out validation images by true label (row) and predicted label (column), both in the order of `labels`. */
export interface ConfusionMatrix {
  labels: string[];
  counts: number[][];
}

export interface CustomServiceRow {
  id: string;
  account_id: number;
  name: string;
  description: string;
  scenario: string;
  training_set_id: string;
  status: CustomServiceStatus;
  stage: TrainingStage;
  progress: number;
  message: string | null;
  validation_accuracy: number | null;
  label_counts: Record<string, number> | null;
  run_failures: number;
  created_at: Date;
  updated_at: Date;
  /** Read for one service only (findCustomService), never for lists: it grows with labels². */
  confusion_matrix?: ConfusionMatrix | null;
}

const COLUMNS = `id, account_id, name, description, scenario, training_set_id, status, stage, progress, message,
                 validation_accuracy, label_counts, run_failures, created_at, updated_at`;

/** Statuses in which a training run still has work to do. */
export const UNFINISHED: CustomServiceStatus[] = ['pending', 'preparing'];

export async function insertCustomService(
  db: Queryable,
  row: { id: string; accountId: number; name: string; description: string; trainingSetId: string },
): Promise<void> {
  await db.query(
    `INSERT INTO custom_services (id, account_id, name, description, training_set_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [row.id, row.accountId, row.name, row.description, row.trainingSetId],
  );
}

/** One service of an account, deleted ones included (the service layer decides what they answer). */
export async function findCustomService(db: Queryable, accountId: number, id: string): Promise<CustomServiceRow | null> {
  const result = await db.query<CustomServiceRow>(`SELECT ${COLUMNS}, confusion_matrix FROM custom_services WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return result.rows[0] ?? null;
}

/** Any service by id (training runs act for the owner). */
export async function customServiceById(db: Queryable, id: string): Promise<CustomServiceRow | null> {
  const result = await db.query<CustomServiceRow>(`SELECT ${COLUMNS} FROM custom_services WHERE id = $1`, [id]);
  return result.rows[0] ?? null;
}

export async function listCustomServices(db: Queryable, accountId: number): Promise<CustomServiceRow[]> {
  const result = await db.query<CustomServiceRow>(
    `SELECT ${COLUMNS} FROM custom_services WHERE account_id = $1 AND status <> 'deleted' ORDER BY created_at, id`,
    [accountId],
  );
  return result.rows;
}

export async function renameCustomService(db: Queryable, accountId: number, id: string, name: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE custom_services SET name = $3, updated_at = now() WHERE account_id = $1 AND id = $2 AND status <> 'deleted'`,
    [accountId, id, name],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Marks a service deleted and drops its model; false when there is no such live service. */
export async function markCustomServiceDeleted(db: Queryable, accountId: number, id: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE custom_services SET status = 'deleted', stage = 'done', deleted_at = now(), updated_at = now()
     WHERE account_id = $1 AND id = $2 AND status <> 'deleted'`,
    [accountId, id],
  );
  if (!result.rowCount) return false;
  await db.query('DELETE FROM custom_service_models WHERE service_id = $1', [id]);
  return true;
}

/**
 * Moves an unfinished service to `preparing` at a stage and progress; false when it is no longer unfinished
 * (deleted or failed meanwhile), which tells a training run to stop.
 */
export async function updateTrainingProgress(db: Queryable, id: string, stage: TrainingStage, progress: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE custom_services
     SET status = 'preparing', stage = $2, progress = $3,
         updated_at = CASE WHEN status <> 'preparing' OR stage <> $2 THEN now() ELSE updated_at END
     WHERE id = $1 AND status IN ('pending', 'preparing')`,
    [id, stage, Math.max(0, Math.min(1, progress))],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function saveLabelCounts(db: Queryable, id: string, counts: Record<string, number>): Promise<void> {
  await db.query(`UPDATE custom_services SET label_counts = $2 WHERE id = $1 AND status IN ('pending', 'preparing')`, [id, JSON.stringify(counts)]);
}

/**
 * Ends an unfinished service as failed with the reason, and records its `custom_training.finished` event in
 * the same transaction; false when it was no longer unfinished.
 */
export async function failCustomService(pool: pg.Pool, id: string, message: string, labelCounts?: Record<string, number>): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const result = await client.query<{ account_id: string; updated_at: Date }>(
      `UPDATE custom_services
       SET status = 'failed', stage = 'failed', message = $2, label_counts = COALESCE($3::jsonb, label_counts), updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'preparing') RETURNING account_id, updated_at`,
      [id, message, labelCounts ? JSON.stringify(labelCounts) : null],
    );
    const row = result.rows[0];
    if (!row) return false;
    await recordEvent(client, trainingFinished(Number(row.account_id), id, 'failed', message, null, row.updated_at));
    return true;
  });
}

function trainingFinished(accountId: number, serviceId: string, status: 'running' | 'failed', message: string | null, validationAccuracy: number | null, at: Date): WebhookEvent {
  return {
    accountId,
    type: 'custom_training.finished',
    data: { service_id: serviceId, status, message, validation_accuracy: validationAccuracy, finished_at: formatTime(at) },
  };
}

/** Counts an unexpected error of a run; returns how many happened in a row. */
export async function recordRunFailure(db: Queryable, id: string): Promise<number> {
  const result = await db.query<{ run_failures: number }>(
    `UPDATE custom_services SET run_failures = run_failures + 1 WHERE id = $1 RETURNING run_failures`,
    [id],
  );
  return result.rows[0]?.run_failures ?? 0;
}

/**
 * Marks a run of the service as started; returns how many earlier runs never ended (their process was
 * killed or hung while it ran), this one's predecessor included.
 */
export async function openRun(db: Queryable, id: string): Promise<number> {
  const result = await db.query<{ run_kills: number }>(
    `UPDATE custom_services SET run_kills = run_kills + (CASE WHEN run_open THEN 1 ELSE 0 END), run_open = true
     WHERE id = $1 RETURNING run_kills`,
    [id],
  );
  return result.rows[0]?.run_kills ?? 0;
}

/** Marks the run as ended (whatever its outcome): the next run does not count it as killed. */
export async function closeRun(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE custom_services SET run_open = false WHERE id = $1', [id]);
}

export interface StoredModel {
  feature_pipeline: string;
  labels: string[];
  dim: number;
  mean: Buffer;
  scale: Buffer;
  weights: Buffer;
  bias: Buffer;
  report: Record<string, unknown>;
  trained_at: Date;
}

/** Stores the model and makes the service running, in one transaction (`db` must be inside one). */
export async function completeCustomService(
  db: Queryable,
  id: string,
  model: Omit<StoredModel, 'trained_at'>,
  outcome: { validationAccuracy: number | null; labelCounts: Record<string, number>; confusion: ConfusionMatrix | null },
): Promise<boolean> {
  const updated = await db.query<{ account_id: string; updated_at: Date }>(
    `UPDATE custom_services
     SET status = 'running', stage = 'done', progress = 1, message = NULL, run_failures = 0,
         validation_accuracy = $2, label_counts = $3, confusion_matrix = $4, updated_at = now()
     WHERE id = $1 AND status IN ('pending', 'preparing') RETURNING account_id, updated_at`,
    [id, outcome.validationAccuracy, JSON.stringify(outcome.labelCounts), outcome.confusion ? JSON.stringify(outcome.confusion) : null],
  );
  const row = updated.rows[0];
  if (!row) return false;
  await recordEvent(db, trainingFinished(Number(row.account_id), id, 'running', null, outcome.validationAccuracy, row.updated_at));
  await db.query(
    `INSERT INTO custom_service_models (service_id, feature_pipeline, labels, dim, mean, scale, weights, bias, report)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (service_id) DO UPDATE SET feature_pipeline = EXCLUDED.feature_pipeline, labels = EXCLUDED.labels, dim = EXCLUDED.dim,
       mean = EXCLUDED.mean, scale = EXCLUDED.scale, weights = EXCLUDED.weights, bias = EXCLUDED.bias, report = EXCLUDED.report, trained_at = now()`,
    [id, model.feature_pipeline, model.labels, model.dim, model.mean, model.scale, model.weights, model.bias, JSON.stringify(model.report)],
  );
  return true;
}

/** What the inference path needs first: the service's status and the version of its model. */
export async function servingState(db: Queryable, accountId: number, id: string): Promise<{ status: CustomServiceStatus; trained_at: Date | null } | null> {
  const result = await db.query<{ status: CustomServiceStatus; trained_at: Date | null }>(
    `SELECT s.status, m.trained_at FROM custom_services s LEFT JOIN custom_service_models m ON m.service_id = s.id
     WHERE s.account_id = $1 AND s.id = $2`,
    [accountId, id],
  );
  return result.rows[0] ?? null;
}

export async function findModel(db: Queryable, serviceId: string): Promise<StoredModel | null> {
  const result = await db.query<StoredModel>(
    'SELECT feature_pipeline, labels, dim, mean, scale, weights, bias, report, trained_at FROM custom_service_models WHERE service_id = $1',
    [serviceId],
  );
  return result.rows[0] ?? null;
}

/** Ids of services a training run still has to finish, oldest first. */
export async function unfinishedServiceIds(db: Queryable): Promise<string[]> {
  const result = await db.query<{ id: string }>(`SELECT id FROM custom_services WHERE status IN ('pending', 'preparing') ORDER BY created_at, id`);
  return result.rows.map((r) => r.id);
}

/** True when a live (not deleted, not failed) service depends on the training set. */
export async function setHasLiveService(db: Queryable, setId: string): Promise<boolean> {
  const result = await db.query(`SELECT 1 FROM custom_services WHERE training_set_id = $1 AND status IN ('pending', 'preparing', 'running') LIMIT 1`, [setId]);
  return (result.rowCount ?? 0) > 0;
}
