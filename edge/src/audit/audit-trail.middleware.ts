/**
 * Records audited calls in the audit log (docs/tenants.md, "Audit log"): every mutating admin call, every
 * change of keys or account settings, and every delete under the hosted paths. Other calls pass without
 * any work, so ordinary traffic is not slowed; an audited call costs one D1 round trip after its answer.
 * A failed write is logged and never changes the answer (the action has happened).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { isApiError } from '@iris/shared';
import { findOperation } from '@iris/shared/client';
import { database } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { insertAuditEntry } from './audit.repo.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_PATHS = /^\/iris\/(keys|account)(\/|$)/;
/** The specification's image-set POST without a body deletes the set and answers 204. */
const IMAGE_SET_POST = /^\/image_sets\/_0000014\/[^/]+$/;
const MAX_PATH_CHARS = 512;
/** An access key id in an admin path may be a bearer credential: the log keeps the key's reference instead. */
const ADMIN_KEY_PATH = /^\/admin\/keys\/[^/]+/;

export function redactedPath(path: string): string {
  return path.replace(ADMIN_KEY_PATH, '/admin/keys/{key_id}').slice(0, MAX_PATH_CHARS);
}

export function isAuditedPublicCall(method: string, path: string, status: number): boolean {
  if (method === 'DELETE') return true;
  if (KEY_PATHS.test(path)) return MUTATING.has(method);
  return method === 'POST' && status === 204 && IMAGE_SET_POST.test(path);
}

/** The last path parameter of the operation the call is (the resource acted on). */
export function targetOf(method: string, path: string): string | null {
  if (ADMIN_KEY_PATH.test(path)) return null;
  const operation = findOperation(method, path);
  if (!operation) return null;
  const template = operation.path.split('/').filter(Boolean);
  const actual = path.split('/').filter(Boolean);
  for (let i = template.length - 1; i >= 0; i--) if (/^\{\w+\}$/.test(template[i]!)) return actual[i] ?? null;
  return null;
}

function outcomeOf(status: number): 'ok' | 'refused' | 'failed' {
  if (status < 400) return 'ok';
  return status >= 500 ? 'failed' : 'refused';
}

interface Actor {
  actor: 'key' | 'operator';
  accountId: number | null;
  keyRef: string | null;
}

async function record(c: Context<AppEnv>, who: Actor, status: number): Promise<void> {
  const path = c.get('forwardPath');
  const detail = c.get('auditDetail');
  const counter = c.get('d1');
  if (counter) counter.roundTrips++; // reported with x-iris-d1-queries like the call's own
  try {
    await insertAuditEntry(
      database(c.env.DB),
      {
        at: Date.now(),
        ...who,
        accountId: c.get('auditAccountId') ?? who.accountId,
        requestId: c.get('requestId'),
        method: c.req.method,
        path: redactedPath(path),
        targetId: c.get('auditTarget') ?? targetOf(c.req.method, path)?.slice(0, 200) ?? null,
        status,
        outcome: outcomeOf(status),
        detail: detail ? JSON.stringify(detail) : null,
      },
      c.get('config').auditRetentionMs,
    );
  } catch (err) {
    console.error('audit log write failed', err);
  }
}

/** Runs the call, then records it when `audited` says so, whether it answered or threw. */
function trail(audited: (c: Context<AppEnv>, status: number) => boolean, actor: (c: Context<AppEnv>) => Actor): MiddlewareHandler<AppEnv> {
  return async function auditTrail(c, next) {
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
    }
    const status = failure ? (isApiError(failure) ? failure.status : 500) : c.error && isApiError(c.error) ? c.error.status : c.res.status;
    if (audited(c, status)) await record(c, actor(c), status);
    if (failure) throw failure;
  };
}

/** Public API: after authentication (the caller is known). */
export function publicAuditTrail(): MiddlewareHandler<AppEnv> {
  return trail(
    (c, status) => isAuditedPublicCall(c.req.method, c.get('forwardPath'), status),
    (c) => ({ actor: 'key', accountId: c.get('caller').accountId, keyRef: c.get('caller').keyRef }),
  );
}

/** Admin API: every mutating call, once the operator's token is accepted. */
export function adminAuditTrail(): MiddlewareHandler<AppEnv> {
  return trail(
    (c) => MUTATING.has(c.req.method),
    (c) => ({ actor: 'operator', accountId: accountInPath(c.get('forwardPath')), keyRef: null }),
  );
}

function accountInPath(path: string): number | null {
  const match = /^\/admin\/accounts\/(\d{1,15})(\/|$)/.exec(path);
  return match ? Number(match[1]) : null;
}
