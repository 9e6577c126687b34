import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@iris/shared';
import { adminFailures, clientAddress } from '../auth/failure-limiter.js';
import { ConfigError } from '../config.js';
import type { AppEnv } from '../env.js';
import { RetryLaterError } from '../http/retry-later.error.js';

function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN the admin API does not exist (404), with one
 * shorter than MIN_ADMIN_TOKEN_CHARS it refuses every call (500, the reason in the log). An address that
 * fails too often in the window gets 429 before its token is compared.
 */
export function adminAuth(): MiddlewareHandler<AppEnv> {
  return async function adminAuth(c, next) {
    const config = c.get('config');
    const token = config.adminToken;
    if (!token) throw new ApiError('notFound', 'the admin API is disabled (ADMIN_TOKEN is not set)');
    if (config.adminTokenProblem) throw new ConfigError(config.adminTokenProblem);
    const address = clientAddress(c.req.raw.headers);
    if (adminFailures.addressBlocked(address, config.adminFailures)) {
      throw new RetryLaterError('too many failed admin authentications from this address; retry later', Math.ceil(config.adminFailures.windowMs / 1000));
    }
    const given = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim() ?? '';
    if (!constantTimeEqual(given, token)) {
      adminFailures.record(address, config.adminFailures);
      throw new ApiError('unauthorizedInternal', 'admin token missing or wrong');
    }
    await next();
  };
}
