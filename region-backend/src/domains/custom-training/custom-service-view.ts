/** Response mapping of custom training services: the specification's fields plus training details. */
import type { z } from 'zod';
import { formatTime, type CustomService, type CustomServiceResponse } from '@iris/shared';
import type { CustomServiceRow } from './custom-service.repo.js';

/** A service as a list shows it; answers about one service add the confusion matrix and the request id. */
export type CustomServiceObject = z.input<typeof CustomService> & Partial<Pick<z.input<typeof CustomServiceResponse>, 'confusion_matrix' | 'request_id'>>;

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The service object; `requestId` and the confusion matrix are left out inside list results. */
export function customServiceObject(row: CustomServiceRow): CustomServiceObject;
export function customServiceObject(row: CustomServiceRow, requestId: string): z.input<typeof CustomServiceResponse>;
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
