/**
 * Reading admin API requests: bodies are parsed with the contract's admin schemas (`shared/src/contract/admin.ts`,
 * also published in /openapi.json), refusals in the resource error shape (400/1111).
 */
import type { z } from 'zod';
import { ApiError } from '@iris/shared';
import { readBodyBytes } from '../http/request-body.js';

/** Admin bodies are a few fields of JSON. */
const MAX_ADMIN_BODY_BYTES = 64 * 1024;
const decoder = new TextDecoder();

/** Parses a JSON body with a schema; refusals use the resource error shape (400/1111). */
export async function parseBody<T extends z.ZodTypeAny>(request: Request, schema: T): Promise<z.infer<T>> {
  const bytes = await readBodyBytes(request, MAX_ADMIN_BODY_BYTES);
  const text = bytes ? decoder.decode(bytes) : '';
  let value: unknown = {};
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('badRequest', 'body must be JSON');
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('badRequest', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return result.data;
}

export function parseAccountId(text: string | undefined): number {
  const id = Number(text);
  if (!Number.isInteger(id) || id < 1) throw new ApiError('notFound', `account ${text ?? ''} does not exist`);
  return id;
}
