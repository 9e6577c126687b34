/**
 * Per-key request rate limit at the edge with the Workers rate-limiting binding `KEY_RATE_LIMITER`
 * (`[[ratelimits]]` in wrangler.toml: calls per key per period, counted at the point of presence, no D1).
 * Over the limit: 429/1112 in the path family's error shape with `Retry-After` (the binding's period).
 * Runs after the key is known and before the body is read. Without the binding, calls are not limited.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { errorResponse } from '../http/error-handler.js';

export function keyRateLimit(): MiddlewareHandler<AppEnv> {
  return async function keyRateLimit(c, next) {
    const limiter = c.env.KEY_RATE_LIMITER;
    if (limiter) {
      const { success } = await limiter.limit({ key: c.get('credential').keyHash });
      if (!success) {
        const retryAfter = String(c.get('config').rateLimitPeriodSeconds);
        const res = errorResponse(c, new ApiError('rateLimited', `too many requests for this access key; retry after ${retryAfter} s`));
        res.headers.set('retry-after', retryAfter);
        return res;
      }
    }
    await next();
  };
}
