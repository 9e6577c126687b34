/** Checks request input against a contract schema; a refusal carries the operation's own error code. */
import type { z } from 'zod';
import { ApiError, type ErrorFamily, type ErrorKey } from '../errors.js';
import type { Operation } from './common.js';

const DEFAULT_ERROR: Record<ErrorFamily, ErrorKey> = { resource: 'invalidData', analysis: 'analysisBadRequest', batch: 'badRequest' };

/** Parses `values` (body fields, query, params) with `schema`; the first problem decides the code (by field, else the family's). */
export function parseInput<S extends z.ZodTypeAny>(schema: S, operation: Pick<Operation, 'errors' | 'fieldErrors'>, values: unknown): z.output<S> {
  const result = schema.safeParse(values);
  if (result.success) return result.data as z.output<S>;
  const issue = firstIssue(result.error.issues);
  const field = String(issue.path[0] ?? '');
  const key = operation.fieldErrors?.[field] ?? DEFAULT_ERROR[operation.errors];
  throw new ApiError(key, `${field || 'request'}: ${issue.message}`);
}

/** For a union, the issue of the branch that came closest is more telling than "invalid input". */
function firstIssue(issues: z.ZodIssue[]): z.ZodIssue {
  const issue = issues[0]!;
  if (issue.code === 'invalid_union' && issue.unionErrors.length) {
    const deepest = issue.unionErrors.map((e) => e.issues[0]!).sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest) return deepest;
  }
  return issue;
}
