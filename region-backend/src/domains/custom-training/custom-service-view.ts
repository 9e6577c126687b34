/** Response mapping of custom training services: the specification's fields plus training details. */
import { formatTime } from '@iris/shared';
import type { ConfusionMatrix, CustomServiceRow, CustomServiceStatus, TrainingStage } from './custom-service.repo.js';

export interface CustomServiceObject {
  id: string;
  name: string;
  description: string;
  scenario: string;
  status: CustomServiceStatus;
  training_set_id: string;
  created_at: string;
  last_updated_at: string;
  creator_id: number;
  /** Only when status is failed: why. */
  message?: string;
  /** Iris: accuracy on the held-out validation images (null until trained). */
  validation_accuracy: number | null;
  /** Iris: usable images per label, once the images are prepared ({} before). */
  label_counts: Record<string, number>;
  /** Iris: share of the preparation done, 0..1 (1 once running). */
  progress: number;
  /** Iris: the step of preparation: queued, downloading, embedding, training, done or failed. */
  stage: TrainingStage;
  /**
   * Iris: held-out validation images by true label (row) and predicted label (column); null until trained.
   * Only in answers about one service (left out of list results: it grows with labels²).
   */
  confusion_matrix?: ConfusionMatrix | null;
  request_id?: string;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The service object; `requestId` and the confusion matrix are left out inside list results. */
export function customServiceObject(row: CustomServiceRow, requestId?: string): CustomServiceObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scenario: row.scenario,
    status: row.status,
    training_set_id: row.training_set_id,
    created_at: formatTime(row.created_at),
    last_updated_at: formatTime(row.updated_at),
    creator_id: Number(row.account_id),
    ...(row.status === 'failed' ? { message: row.message ?? 'training failed' } : {}),
    validation_accuracy: row.validation_accuracy === null ? null : round(row.validation_accuracy, 4),
    label_counts: row.label_counts ?? {},
    progress: round(row.progress, 3),
    stage: row.stage,
    ...(requestId !== undefined ? { confusion_matrix: row.confusion_matrix ?? null, request_id: requestId } : {}),
  };
}
