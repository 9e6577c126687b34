/**
 * Authentication of public API calls, in small steps ordered by cost (docs/edge.md, "Authentication order"):
 * failed-authentication limits (no D1), the access key (isolate caches first, then D1), the body, then the
 * signature when present or required; a call spends its key's rate limit only once the key is proven.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError, isApiError } from '@iris/shared';
import { findKeyForAuth } from '../accounts/key-store.service.js';
import { keyCache, unknownKeyCache } from '../cache/hot-path.cache.js';
import { CallSession } from '../db/call-session.js';
import { lazyDatabase, type D1Counter } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { BodyLease } from '../http/body-memory.js';
import { MAX_BODY_BYTES, readRequestBody } from '../http/request-body.js';
import { RetryLaterError } from '../http/retry-later.error.js';
import { authFailures, clientAddress, CredentialRefused } from './failure-limiter.js';
import { chargeKeyRate, signatureApplies } from './rate-limit.middleware.js';
import { verifyRequestSignature } from './signature-check.js';

/** Longer key ids were never issued (admin API: 4-128 characters): unknown without a lookup. */
const MAX_KEY_ID_CHARS = 128;

/** Answers that mean "these credentials are not good": counted per client address. */
const FAILURE_CODES = new Set([1102, 1103, 1104, 1105, 1106]);

function isAuthFailure(err: unknown): boolean {
  return err instanceof CredentialRefused || (isApiError(err) && FAILURE_CODES.has(err.code));
}

/**
 * Refuses an address that has failed authentication too often in the window (429 with Retry-After), and
 * counts the failures of the calls it lets through, whichever step found them.
 */
export function failedAuthLimit(): MiddlewareHandler<AppEnv> {
  return async function failedAuthLimit(c, next) {
    const limits = c.get('config').authFailures;
    const address = clientAddress(c.req.raw.headers);
    if (authFailures.addressBlocked(address, limits)) {
      throw new RetryLaterError('too many failed authentications from this address; retry later', Math.ceil(limits.windowMs / 1000));
    }
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
    }
    if (isAuthFailure(failure ?? c.error)) authFailures.record(address, limits);
    if (failure) throw failure;
  };
}

const VERSIONS = new Set(['1', '1.0']);

/** The call's D1 session and round-trip counter (reported as `x-iris-d1-queries` when configured). */
export function callDatabase(): MiddlewareHandler<AppEnv> {
  return async function callDatabase(c, next) {
    const counter: D1Counter = { roundTrips: 0 };
    const session = new CallSession(c.env.DB, counter);
    c.set('d1', counter);
    c.set('session', session);
    c.set('db', lazyDatabase(() => session.db));
    await next();
    if (c.get('config').reportD1Queries) c.res.headers.set('x-iris-d1-queries', String(counter.roundTrips));
  };
}

export function accessKey(): MiddlewareHandler<AppEnv> {
  return async function accessKey(c, next) {
    const declared = Number(c.req.header('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      throw new ApiError('payloadTooLarge', `request body must be at most ${MAX_BODY_BYTES} bytes (uploads under 50 MB)`);
    }
    const keyId = c.req.header('x-ca-accesskeyid')?.trim();
    if (!keyId) throw new ApiError('accessKeyMissing', 'the x-ca-accesskeyid header is required');
    const version = c.req.header('x-ca-version')?.trim();
    if (version && !VERSIONS.has(version)) throw new ApiError('versionUnsupported', `x-ca-version ${version} is not supported (use 1)`);
    const config = c.get('config');
    const unknown = () => new ApiError('accessKeyUnknown', 'unknown access key');
    if (keyId.length > MAX_KEY_ID_CHARS || unknownKeyCache.peek(keyId)) throw unknown();
    let found = keyCache.peek(keyId);
    if (!found) {
      // Under a flood of failures, only keys this isolate already knows are served: D1 is not asked.
      if (authFailures.totalExhausted(config.authFailures)) {
        throw new RetryLaterError('too many failed authentications at this edge; retry later', Math.ceil(config.authFailures.windowMs / 1000));
      }
      const db = c.get('db');
      found = await keyCache.get(keyId, config.cacheTtlMs, () => findKeyForAuth(db, c.env.SECRETS_MASTER_KEY, keyId, c.get('session')));
      if (!found) {
        unknownKeyCache.set(keyId, true, config.unknownKeyTtlMs);
        throw unknown();
      }
    }
    if (!found.enabled) throw new ApiError('accessKeyDisabled', 'the access key is disabled');
    if (found.accountDisabled) throw new ApiError('accessKeyDisabled', 'the account is disabled');
    // Expiry (and the end of a rotation's overlap) is checked on every call, cached or not.
    if (found.expiresAt !== null && found.expiresAt <= Date.now()) throw new ApiError('accessKeyDisabled', 'the access key has expired');
    c.set('credential', {
      keyId: found.keyId,
      keyHash: found.keyHash,
      secret: found.secret,
      accountId: found.accountId,
      signatureRequired: found.signatureRequired,
      quotas: found.quotas,
      keyRef: found.keyRef,
      scopes: found.scopes,
    });
    // Refused before the body is read or any budget is spent.
    if (found.signatureRequired && c.req.header('x-ca-signature') === undefined) {
      throw new ApiError('signatureInvalid', 'this access key (or its account) requires signed requests (x-ca-signature)');
    }
    await next();
  };
}

/**
 * Reads the raw body (every method) for signature checks, parameter lookups and forwarding; large uploads
 * stream. The memory it takes is given back when the call ends, answered or failed.
 */
export function requestBody(): MiddlewareHandler<AppEnv> {
  return async function requestBody(c, next) {
    const config = c.get('config');
    const lease = new BodyLease(config.bodyMemoryBytes);
    try {
      c.set('body', await readRequestBody(c.req.raw, MAX_BODY_BYTES, config.streamMinBytes, lease));
      await next();
    } finally {
      lease.end();
    }
  };
}

/**
 * Checks the caller's signature, then charges the key's rate limit. A streamed upload's fields are known
 * only once it has passed: its check (and the charge) holds back the end of the forwarded body
 * (streamed-upload.ts), and no answer leaves before the verdict, so a call with a bad signature answers the
 * signature error whatever the route would have said.
 */
export function signature(): MiddlewareHandler<AppEnv> {
  return async function signature(c, next) {
    const credential = c.get('credential');
    const body = c.get('body');
    if (signatureApplies(c)) {
      const call = {
        keyId: credential.keyHash,
        secret: credential.secret,
        headers: c.req.raw.headers,
        body,
        maxSkewSeconds: c.get('config').maxSkewSeconds,
        now: Date.now(),
      };
      const verifyThenCharge = async () => {
        await verifyRequestSignature(c.get('db'), call);
        await chargeKeyRate(c);
      };
      if (body.streams) body.upload!.requireBeforeEnd(body.upload!.fields.then(verifyThenCharge));
      else await verifyThenCharge();
    }
    c.set('caller', {
      accountId: credential.accountId,
      keyId: credential.keyId,
      keyHash: credential.keyHash,
      keyRef: credential.keyRef,
      scopes: credential.scopes,
      quotas: credential.quotas,
    });
    if (!body.upload) return next();
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
    }
    if (!body.upload.started) await body.upload.discard();
    await body.upload.verdict();
    if (failure) throw failure;
  };
}
