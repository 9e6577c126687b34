/**
 * Paths a backend serves to its operators and to the edge only — health (`/healthz`, `/livez`, `/readyz`,
 * which name database hosts and model paths), metrics and `/internal/*` — do not exist through the edge:
 * 404 in the specification's shape before any key is looked at. The path is compared as a backend could
 * read it: percent-decoded, repeated slashes and a trailing slash or `;params` dropped, any letter case.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@iris/shared';
import type { AppEnv } from '../env.js';

const BACKEND_ONLY = new Set(['healthz', 'livez', 'readyz', 'metrics', 'internal']);

function decoded(path: string): string {
  let current = path;
  // Twice-encoded names (`%2572eadyz`) are read as a lenient server could.
  for (let i = 0; i < 3; i++) {
    try {
      const next = decodeURIComponent(current);
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

/** The first path segment as a backend could read it, e.g. `/%52eadyz;x/` → `readyz`. */
export function firstSegment(pathname: string): string {
  const path = decoded(pathname).replace(/\\/g, '/');
  const segment = path.split('/').find((s) => s !== '' && s !== '.') ?? '';
  return segment.split(';')[0]!.trim().toLowerCase();
}

export function isBackendOnlyPath(pathname: string): boolean {
  return BACKEND_ONLY.has(firstSegment(pathname));
}

export function backendOnlyPaths(): MiddlewareHandler<AppEnv> {
  return async function backendOnlyPaths(c, next) {
    if (isBackendOnlyPath(new URL(c.req.url).pathname)) throw new ApiError('notFound', `no such endpoint: ${c.req.method} ${c.get('forwardPath')}`);
    await next();
  };
}
