/**
 * Per-key request rate limit at the edge with the Workers rate-limiting binding `KEY_RATE_LIMITER`
 * (`[[ratelimits]]` in wrangler.toml: calls per key per period, counted at the point of presence, no D1).
 * Over the limit: 429/1112 in the path family's error shape with `Retry-After` (the binding's period).
 * A call is charged to its key only once the key is proven: an unsigned call of a key that does not require
 * signatures before its body is read; a signed call once its signature has passed (auth.middleware.ts), so a
 * caller who knows only a key id cannot spend that key's budget. Without the binding, calls are not limited.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { RetryLaterError } from '../http/retry-later.error.js';

/** True when the call's key is proven by a signature (checked later) rather than by its id alone. */
export function signatureApplies(c: Context<AppEnv>): boolean {
  return c.req.header('x-ca-signature') !== undefined || c.get('credential').signatureRequired;
}

/** Charges one call to the caller's key; throws 429 when the key is over its limit. */
export async function chargeKeyRate(c: Context<AppEnv>): Promise<void> {
  const limiter = c.env.KEY_RATE_LIMITER;
  if (!limiter) return;
  const { success } = await limiter.limit({ key: c.get('credential').keyHash });
  if (!success) {
    const period = c.get('config').rateLimitPeriodSeconds;
    throw new RetryLaterError(`too many requests for this access key; retry after ${period} s`, period);
  }
}

/** The charge of unsigned calls, before their body is read; signed calls are charged after the check. */
export function keyRateLimit(): MiddlewareHandler<AppEnv> {
  return async function keyRateLimit(c, next) {
    if (!signatureApplies(c)) await chargeKeyRate(c);
    await next();
  };
}
