/**
 * The contract: one zod schema per request and response of every endpoint, grouped by domain. The backend
 * validates and serialises through it, the edge publishes `/openapi.json` from it, the CLI parses with it.
 */
import type { z } from 'zod';
import { accountKeyOperations, adminAccountKeyOperations } from './account-keys.js';
import { adminOperations } from './admin.js';
import { analysisOperations } from './analysis.js';
import { adminAuditOperations, auditOperations } from './audit.js';
import { badCaseOperations } from './bad-cases.js';
import { batchOperations } from './batch.js';
import type { Operation } from './common.js';
import { customTrainingOperations } from './custom-training.js';
import { fileUploadOperations } from './file-uploads.js';
import { imageSetOperations } from './image-sets.js';
import { platformOperations } from './platform.js';
import { productSetOperations } from './product-sets.js';
import { searchEvaluationOperations } from './search-evaluation.js';
import { searchServiceOperations } from './search-services.js';
import { searchOperations } from './search.js';
import { setRecordOperations } from './set-records.js';
import { webhookOperations } from './webhooks.js';
import { exportOperations, supportOperations } from './export.js';
import { usageOperations } from './usage.js';

export * from './common.js';
export * from './error-shapes.js';
export * from './image-sets.js';
export * from './product-sets.js';
export * from './search-services.js';
export * from './search-evaluation.js';
export * from './search.js';
export * from './custom-training.js';
export * from './analysis.js';
export * from './batch.js';
export * from './bad-cases.js';
export * from './platform.js';
export * from './set-records.js';
export * from './input.js';
export * from './admin.js';
export * from './declared-errors.js';
export * from './account-keys.js';
export * from './audit.js';
export * from './webhooks.js';
export * from './usage.js';
export * from './export.js';
export * from './file-uploads.js';

export const OPERATIONS: readonly Operation[] = [
  ...imageSetOperations,
  ...productSetOperations,
  ...searchServiceOperations,
  ...searchEvaluationOperations,
  ...searchOperations,
  ...customTrainingOperations,
  ...analysisOperations,
  ...batchOperations,
  ...badCaseOperations,
  ...platformOperations,
  ...setRecordOperations,
  ...accountKeyOperations,
  ...auditOperations,
  ...webhookOperations,
  ...usageOperations,
  ...exportOperations,
  ...supportOperations,
  ...fileUploadOperations,
];

/** The operator API (`/admin`, bearer token): published in the document, kept out of the backend's route table. */
export const ADMIN_OPERATIONS: readonly Operation[] = [...adminOperations, ...adminAccountKeyOperations, ...adminAuditOperations];

/** Every operation with its literal id and schemas, for typed calls. */
type AnyOperation =
  | (typeof imageSetOperations)[number]
  | (typeof productSetOperations)[number]
  | (typeof searchServiceOperations)[number]
  | (typeof searchEvaluationOperations)[number]
  | (typeof searchOperations)[number]
  | (typeof customTrainingOperations)[number]
  | (typeof analysisOperations)[number]
  | (typeof batchOperations)[number]
  | (typeof badCaseOperations)[number]
  | (typeof platformOperations)[number]
  | (typeof setRecordOperations)[number]
  | (typeof accountKeyOperations)[number]
  | (typeof auditOperations)[number]
  | (typeof adminOperations)[number]
  | (typeof adminAccountKeyOperations)[number]
  | (typeof adminAuditOperations)[number]
  | (typeof webhookOperations)[number]
  | (typeof usageOperations)[number]
  | (typeof exportOperations)[number]
  | (typeof supportOperations)[number]
  | (typeof fileUploadOperations)[number];
export type OperationId = AnyOperation['id'];
export type OperationOf<Id extends OperationId> = Extract<AnyOperation, { id: Id }>;
/** The parsed success answer of an operation (void for 204 No Content). */
export type ResponseOf<Id extends OperationId> = OperationOf<Id>['response'] extends infer R extends z.ZodTypeAny ? z.output<R> : void;

export function operationById<Id extends OperationId>(id: Id): OperationOf<Id>;
export function operationById(id: string): Operation;
export function operationById(id: string): Operation {
  const found = OPERATIONS.find((o) => o.id === id) ?? ADMIN_OPERATIONS.find((o) => o.id === id);
  if (!found) throw new Error(`no operation ${id} in the contract`);
  return found;
}

/** `/image_sets/_0000014/{image_set_id}` → `/image_sets/_0000014/:image_set_id` (names are not compared). */
export function routePattern(operation: Operation): string {
  return operation.route ?? operation.path.replace(/\{[^}]+\}/g, ':p');
}

/** A route key comparable across Fastify and the contract: method plus the path with every parameter as `:p`. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:[A-Za-z_]\w*/g, ':p').replace(/\/+$/, '') || '/'}`;
}
export * from './specification.table.js';
