import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

/**
 * One JSON line per call (Workers Logs / `wrangler tail`): the request_id the caller sees, the account,
 * the region, method, path, status and duration. The backend's log lines carry the same request_id.
 */
export function accessLog(): MiddlewareHandler<AppEnv> {
  return async function accessLog(c, next) {
    await next();
    const line = {
      request_id: c.get('requestId'),
      account: c.get('caller')?.accountId ?? null,
      region: c.get('region') ?? null,
      method: c.req.method,
      path: c.get('forwardPath'),
      status: c.res.status,
      ms: Date.now() - c.get('startedAt'),
    };
    console.log(JSON.stringify(line));
  };
}
