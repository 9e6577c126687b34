import type { MiddlewareHandler } from 'hono';
import { languageFromHeader } from '@iris/shared';
import { loadConfig } from '../config.js';
import type { AppEnv } from '../env.js';
import { regionForHost } from '../regions/region-routing.js';
import { finishResponse } from './responses.js';

export function newRequestId(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

/** `/search/abc//?x=1` → `/search/abc`: trailing slashes dropped, percent-encoding kept as sent. */
export function normalisedPath(url: string): string {
  const pathname = new URL(url).pathname.replace(/\/+$/, '');
  return pathname === '' ? '/' : pathname;
}

/**
 * Per-call context: request id, start time, label language, normalised path. Runs first and finishes
 * every response (errors included): request id header, no compression.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    c.set('requestId', newRequestId());
    c.set('startedAt', Date.now());
    c.set('lang', languageFromHeader(c.req.header('accept-language')));
    c.set('forwardPath', normalisedPath(c.req.url));
    await next();
    c.res = finishResponse(c.res, c.get('requestId'));
  };
}

/** Configuration and the region chosen by the Host header. */
export function edgeConfig(): MiddlewareHandler<AppEnv> {
  return async function edgeConfig(c, next) {
    const config = loadConfig(c.env);
    c.set('config', config);
    c.set('region', regionForHost(c.req.header('host') ?? new URL(c.req.url).host, config));
    await next();
  };
}
