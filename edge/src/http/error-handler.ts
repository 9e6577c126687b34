/** The one mapping from errors to the specification's shapes, chosen by the path's endpoint family. */
import type { Context } from 'hono';
import { ApiError, apiErrorBody, isApiError } from '@iris/shared';
import { ConfigError } from '../config.js';
import type { AppEnv } from '../env.js';
import { newRequestId, normalisedPath } from './request-context.middleware.js';
import { json } from './responses.js';

function toApiError(err: Error): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof ConfigError) {
    console.error(err.message);
    return new ApiError('internal', err.message);
  }
  console.error('unhandled error', err);
  return new ApiError('internal', 'internal error');
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  const path = c.get('forwardPath') ?? normalisedPath(c.req.url);
  const requestId = c.get('requestId') ?? newRequestId();
  const started = c.get('startedAt') ?? Date.now();
  return json(apiErrorBody(path, err, requestId, (Date.now() - started) / 1000), err.status);
}

export function handleError(err: Error, c: Context<AppEnv>): Response {
  return errorResponse(c, toApiError(err));
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return errorResponse(c, new ApiError('notFound', `no such endpoint: ${c.req.method} ${c.get('forwardPath') ?? normalisedPath(c.req.url)}`));
}
