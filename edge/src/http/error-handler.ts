/** The one mapping from errors to the specification's shapes, chosen by the path's endpoint family. */
import type { Context } from 'hono';
import { ApiError, apiErrorBody, ERROR, isApiError } from '@iris/shared';
import { ConfigError } from '../config.js';
import type { AppEnv } from '../env.js';
import { newRequestId, normalisedPath } from './request-context.middleware.js';
import { json } from './responses.js';
import { RetryLaterError } from './retry-later.error.js';

const INTERNAL = ERROR.internal[1];

/**
 * Callers get the specification's generic internal error; what went wrong (a configuration error, a stored
 * secret that does not open, a crash) goes to the log only.
 */
function toApiError(err: Error): ApiError {
  if (isApiError(err) && err.code !== INTERNAL) return err;
  if (isApiError(err) || err instanceof ConfigError) console.error(err.message);
  else console.error('unhandled error', err);
  return new ApiError('internal', 'internal error');
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  const path = c.get('forwardPath') ?? normalisedPath(c.req.url);
  const requestId = c.get('requestId') ?? newRequestId();
  const started = c.get('startedAt') ?? Date.now();
  return json(apiErrorBody(path, err, requestId, (Date.now() - started) / 1000), err.status);
}

export function handleError(err: Error, c: Context<AppEnv>): Response {
  const res = errorResponse(c, toApiError(err));
  if (err instanceof RetryLaterError) res.headers.set('retry-after', String(err.retryAfterSeconds));
  return res;
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return errorResponse(c, new ApiError('notFound', `no such endpoint: ${c.req.method} ${c.get('forwardPath') ?? normalisedPath(c.req.url)}`));
}
