/**
 * `/admin/regions/{region}/...` → that region's backend as `/admin/...`, signed with account 0 (operator).
 * Used for operator-only backend routes such as registering reference logos.
 */
import { Hono } from 'hono';
import { ApiError, REGIONS, type RegionId } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { forwardToBackend } from '../forward/forward.service.js';
import { readBodyBytes } from '../http/request-body.js';

export const OPERATOR_ACCOUNT_ID = 0;

export const regionForwardRoutes = new Hono<AppEnv>().all('/:region/*', async function forwardToRegionAdmin(c) {
  const region = c.req.param('region') as RegionId;
  if (!REGIONS.includes(region)) throw new ApiError('notFound', `unknown region ${region}`);
  const config = c.get('config');
  const prefix = `/admin/regions/${region}`;
  const path = c.get('forwardPath');
  if (!path.startsWith(`${prefix}/`)) throw new ApiError('notFound', 'no such endpoint');
  const url = new URL(c.req.url);
  const headers = new Headers(c.req.raw.headers);
  headers.delete('authorization'); // the admin token stays at the edge
  const answer = await forwardToBackend({
    region,
    backend: config.backends[region],
    timeoutMs: config.backendTimeoutMs,
    method: c.req.method,
    pathWithQuery: `/admin${path.slice(prefix.length)}${url.search}`,
    headers,
    body: await readBodyBytes(c.req.raw),
    accountId: OPERATOR_ACCOUNT_ID,
    context: { requestId: c.get('requestId'), lang: c.get('lang') },
    publicUrl: url,
  });
  return answer.response;
});
