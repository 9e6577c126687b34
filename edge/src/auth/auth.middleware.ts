/**
 * Authentication of public API calls, in three small steps so that bodies are only read for known keys:
 * the access key (and version header), the body, then the signature when present or required.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@iris/shared';
import { findKeyForAuth } from '../accounts/key-store.service.js';
import { keyCache } from '../cache/hot-path.cache.js';
import { sessionDatabase, type D1Counter } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { MAX_BODY_BYTES, readRequestBody } from '../http/request-body.js';
import { verifyRequestSignature } from './signature-check.js';

const VERSIONS = new Set(['1', '1.0']);

/** The call's D1 session and round-trip counter (reported as `x-iris-d1-queries` when configured). */
export function callDatabase(): MiddlewareHandler<AppEnv> {
  return async function callDatabase(c, next) {
    const counter: D1Counter = { roundTrips: 0 };
    c.set('d1', counter);
    c.set('db', sessionDatabase(c.env.DB, counter));
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
    const db = c.get('db');
    const found = await keyCache.get(keyId, c.get('config').cacheTtlMs, () => findKeyForAuth(db, c.env.SECRETS_MASTER_KEY, keyId));
    if (!found) throw new ApiError('accessKeyUnknown', 'unknown access key');
    if (!found.enabled) throw new ApiError('accessKeyDisabled', 'the access key is disabled');
    if (found.accountDisabled) throw new ApiError('accessKeyDisabled', 'the account is disabled');
    c.set('credential', {
      keyId: found.keyId,
      keyHash: found.keyHash,
      secret: found.secret,
      accountId: found.accountId,
      signatureRequired: found.signatureRequired,
      quotas: found.quotas,
    });
    await next();
  };
}

/** Reads the raw body (every method) for signature checks, parameter lookups and forwarding; large uploads stream. */
export function requestBody(): MiddlewareHandler<AppEnv> {
  return async function requestBody(c, next) {
    c.set('body', await readRequestBody(c.req.raw, MAX_BODY_BYTES, c.get('config').streamMinBytes));
    await next();
  };
}

/**
 * Checks the caller's signature. A streamed upload's fields are known only once it has passed: its check
 * holds back the end of the forwarded body (streamed-upload.ts), and no answer leaves before the verdict,
 * so a call with a bad signature answers the signature error whatever the route would have said.
 */
export function signature(): MiddlewareHandler<AppEnv> {
  return async function signature(c, next) {
    const credential = c.get('credential');
    const body = c.get('body');
    if (c.req.header('x-ca-signature') !== undefined || credential.signatureRequired) {
      const call = {
        keyId: credential.keyHash,
        secret: credential.secret,
        headers: c.req.raw.headers,
        body,
        maxSkewSeconds: c.get('config').maxSkewSeconds,
        now: Date.now(),
      };
      if (body.streams) body.upload!.requireBeforeEnd(body.upload!.fields.then(() => verifyRequestSignature(c.get('db'), call)));
      else await verifyRequestSignature(c.get('db'), call);
    }
    c.set('caller', { accountId: credential.accountId, keyId: credential.keyId, quotas: credential.quotas });
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
