/**
 * Which scope a public call needs (docs/tenants.md, "Scopes"). A key without a scope list may do
 * everything; one with a list is refused outside it with 403/1113 in the path family's error shape.
 * Rules are tried in order; the first whose path pattern matches decides, else the method does
 * (GET and HEAD read, anything else changes data).
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError, errorFamilyForPath, type KeyScope } from '@iris/shared';
import type { AppEnv } from '../env.js';

interface ScopeRule {
  path: RegExp;
  /** Only these methods (all when absent). */
  methods?: readonly string[];
  scope: KeyScope;
}

const SCOPE_RULES: readonly ScopeRule[] = [
  { path: /^\/iris\/(keys|account|audit)(\/|$)/, scope: 'admin-of-account' },
  // Registering or removing an endpoint decides where the account's events go; listing them is a read.
  { path: /^\/iris\/webhooks(\/|$)/, methods: ['POST', 'PUT', 'PATCH', 'DELETE'], scope: 'admin-of-account' },
  { path: /^\/batch(\/|$)/, scope: 'batch' },
  { path: /^\/(search|product_search)(\/|$)/, scope: 'search' },
  { path: /^\/get_/, scope: 'read' },
];

export function scopeForCall(method: string, path: string): KeyScope {
  const rule = SCOPE_RULES.find((r) => r.path.test(path) && (!r.methods || r.methods.includes(method)));
  if (rule) return rule.scope;
  if (errorFamilyForPath(path) === 'analysis') return 'analysis';
  return method === 'GET' || method === 'HEAD' ? 'read' : 'data';
}

export function scopeAllows(scopes: readonly KeyScope[] | null, needed: KeyScope): boolean {
  return scopes === null || scopes.includes(needed);
}

/** After the signature: a refused scope answers like any route error (a bad signature still wins). */
export function requireScope(): MiddlewareHandler<AppEnv> {
  return async function requireScope(c, next) {
    const scopes = c.get('caller').scopes;
    if (scopes === null) return next(); // a key without a scope list: nothing to look up
    const needed = scopeForCall(c.req.method, c.get('forwardPath'));
    if (!scopeAllows(scopes, needed)) {
      throw new ApiError('scopeForbidden', `this access key's scopes do not include ${needed}`);
    }
    await next();
  };
}
