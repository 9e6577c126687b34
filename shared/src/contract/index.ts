/**
 * The contract: one zod schema per request and response of every endpoint, grouped by domain. The backend
 * validates and serialises through it, the edge publishes `/openapi.json` from it, the CLI parses with it.
 */
import { analysisOperations } from './analysis.js';
import { badCaseOperations } from './bad-cases.js';
import { batchOperations } from './batch.js';
import type { Operation } from './common.js';
import { customTrainingOperations } from './custom-training.js';
import { imageSetOperations } from './image-sets.js';
import { platformOperations } from './platform.js';
import { productSetOperations } from './product-sets.js';
import { searchEvaluationOperations } from './search-evaluation.js';
import { searchServiceOperations } from './search-services.js';
import { searchOperations } from './search.js';
import { setRecordOperations } from './set-records.js';

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
];

export function operationById(id: string): Operation {
  const found = OPERATIONS.find((o) => o.id === id);
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
