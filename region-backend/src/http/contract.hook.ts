/**
 * The contract at the backend's door: every public route is bound by value to its contract operation
 * (`serve(operation, handler)`, serve.ts). Adding a route that is not bound, or whose method, path or path
 * parameters differ from its operation's, stops start-up.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { routeKey, routePattern, type Operation } from '@iris/shared';
import './serve.js';

/** A route as added, with the operation it serves (none for a route that only refuses). */
export interface BoundRoute {
  method: string;
  url: string;
  operation: Operation | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every public route added, with its operation (for the test that binds routes and operations one to one). */
    boundRoutes: BoundRoute[];
  }
}

/** Paths outside the public contract: health and metrics, the edge's internal calls, the operator API. */
const OUTSIDE_CONTRACT = [/^\/(healthz|livez|readyz|metrics)$/, /^\/internal\//, /^\/admin\//];

export function isOutsideContract(url: string): boolean {
  return OUTSIDE_CONTRACT.some((pattern) => pattern.test(url));
}

const paramNames = (url: string) => [...url.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]!);

function checkBinding(method: string, route: RouteOptions): Operation {
  const where = `route ${method} ${route.url}`;
  const operation = route.config?.operation;
  if (!operation) throw new Error(`${where} is not bound to a contract operation: add it with serve(operation, handler) (shared/src/contract)`);
  if (routeKey(method, route.url) !== routeKey(operation.method, routePattern(operation))) {
    throw new Error(`${where} is bound to ${operation.id}, which is ${operation.method.toUpperCase()} ${routePattern(operation)}`);
  }
  const names = paramNames(route.url);
  const missing = Object.keys(operation.params?.shape ?? {}).filter((name) => !names.includes(name));
  if (missing.length) throw new Error(`${where}: name its path parameters as ${operation.id} does (${missing.join(', ')})`);
  return operation;
}

export function registerContract(app: FastifyInstance): void {
  app.decorate('boundRoutes', [] as BoundRoute[]);
  app.addHook('onRoute', (route) => {
    if (isOutsideContract(route.url) || route.method === 'HEAD') return;
    for (const method of [route.method].flat()) {
      const operation = route.config?.refusal ? null : checkBinding(method, route);
      app.boundRoutes.push({ method, url: route.url, operation });
    }
  });
}
