/**
 * The body fields the edge acts on (the service a batch task will run, the task an apply names), read
 * through the contract: the field's schema in the operation's request schema, the same one the backend
 * parses the whole body with. A malformed field is refused with the operation's own code and error shape,
 * as the backend would, before anything is forwarded; a field left out reads as '' and is judged as before
 * (the ownership check refuses an apply without task_id with 400011; the backend a prepare without
 * service_id with 400001).
 */
import { z } from 'zod';
import { operationById, parseInput, type Operation, type OperationId } from '@iris/shared';
import type { RequestBody } from './request-body.js';

/** The schema of one field of an operation's body (the object schema, or the union branch that has it). */
function fieldSchema(operationId: OperationId, field: string): z.ZodTypeAny {
  const operation: Operation = operationById(operationId);
  const schema = operation.body?.schema;
  const objects = schema instanceof z.ZodUnion ? (schema.options as z.ZodTypeAny[]) : [schema];
  for (const candidate of objects) {
    if (candidate instanceof z.ZodObject && field in candidate.shape) return candidate.shape[field] as z.ZodTypeAny;
  }
  throw new Error(`operation ${operationId} has no body field ${field} in the contract`);
}

const cache = new Map<string, z.AnyZodObject>();

/** Text values of `fields` (body over query string, as the backend reads them), parsed and trimmed. */
export function contractFields<K extends string>(body: RequestBody, operationId: OperationId, fields: readonly K[]): Record<K, string> {
  const key = `${operationId} ${fields.join(',')}`;
  let schema = cache.get(key);
  if (!schema) {
    schema = z.object(Object.fromEntries(fields.map((f) => [f, fieldSchema(operationId, f).optional()])));
    cache.set(key, schema);
  }
  const values = Object.fromEntries(fields.flatMap((f) => (body.param(f) === undefined ? [] : [[f, body.param(f)]])));
  const parsed = parseInput(schema, operationById(operationId), values) as Record<K, unknown>;
  return Object.fromEntries(fields.map((f) => [f, typeof parsed[f] === 'string' ? (parsed[f] as string).trim() : ''])) as Record<K, string>;
}
