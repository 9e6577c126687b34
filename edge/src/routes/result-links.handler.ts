/**
 * Batch result links (`csv`, `download_urls`) work with nothing but the link, like any object-storage link:
 * a GET of `/batch/_1000001/results/{task_id}/{file}?expires=…&signature=…` without an access key is
 * forwarded for the task's owner when the task is live in this region and the link has not expired. The
 * backend checks the signature (HMAC under the region's link key over account, task, file and expiry).
 * With an access key the call takes the ordinary authenticated path.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError, RESOURCE_ID_PATTERN } from '@iris/shared';
import { authFailures, CredentialRefused } from '../auth/failure-limiter.js';
import { resourceCache } from '../cache/hot-path.cache.js';
import { RetryLaterError } from '../http/retry-later.error.js';
import type { AppEnv } from '../env.js';
import { forwardToBackend } from '../forward/forward.service.js';
import { findResource } from '../registry/registry.repo.js';
import { publicBase } from './proxy.handler.js';

const RESULT_LINK = /^\/batch\/_1000001\/results\/([^/]+)\/[^/]+$/;

export function resultLinks(): MiddlewareHandler<AppEnv> {
  return async function resultLink(c, next) {
    const url = new URL(c.req.url);
    const match = RESULT_LINK.exec(c.get('forwardPath'));
    const expires = url.searchParams.get('expires');
    const signature = url.searchParams.get('signature');
    if (!match || c.req.header('x-ca-accesskeyid') || (c.req.method !== 'GET' && c.req.method !== 'HEAD') || expires === null || signature === null) {
      return next();
    }
    if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/i.test(signature)) throw new ApiError('signatureInvalid', 'the result link is not valid');
    if (Number(expires) * 1000 < Date.now()) throw new ApiError('signatureExpired', 'the result link has expired; fetch task info again for fresh links');
    const taskId = match[1]!;
    const config = c.get('config');
    const region = c.get('region');
    const db = c.get('db');
    const known = resourceCache.peek(taskId);
    // A link costs a D1 lookup before anything proves it: under a flood of failures only cached tasks are served.
    if (!known && authFailures.totalExhausted(config.authFailures)) {
      throw new RetryLaterError('too many failed authentications at this edge; retry later', Math.ceil(config.authFailures.windowMs / 1000));
    }
    const task = RESOURCE_ID_PATTERN.test(taskId)
      ? (known ?? (await resourceCache.get(taskId, config.cacheTtlMs, () => findResource(db, taskId), (r) => r.state === 'live')))
      : undefined;
    if (!task || task.kind !== 'batch_task' || task.state !== 'live' || task.region !== region) {
      throw new CredentialRefused('batchTaskUnknown', `task ${taskId} does not exist`);
    }
    const answer = await forwardToBackend({
      region,
      backend: config.backends[region],
      timeoutMs: config.backendTimeoutMs,
      method: c.req.method,
      pathWithQuery: c.get('forwardPath') + url.search,
      headers: new Headers(),
      body: null,
      accountId: task.accountId,
      context: { requestId: c.get('requestId'), lang: c.get('lang'), publicBase: publicBase(c, url) },
      publicUrl: url,
    });
    return answer.response;
  };
}
