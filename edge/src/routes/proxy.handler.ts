/**
 * The handler behind every public route: registry and catalogue checks for the route's rule, then the
 * call goes to the region's backend. For creates the id is minted and reserved (pending) first; the row
 * turns live only when the backend confirms it, otherwise it is discarded.
 */
import type { Context, Handler } from 'hono';
import { ApiError, operationById, type ForwardContext, type OperationId, type ResourceKind } from '@iris/shared';
import { grantedServices, requireBatchServiceGrant, requireServiceAccess } from '../accounts/service-access.service.js';
import type { AppEnv } from '../env.js';
import { forwardToBackend } from '../forward/forward.service.js';
import { contractFields } from '../http/contract-fields.js';
import { applyRegistryChanges, discardPending } from '../registry/registry.repo.js';
import { requireOwned, reserveResource, type CreateRule, type Reconcile } from '../registry/ownership.service.js';

/** How long a pending create may still be in flight (it counts against the quota meanwhile). */
const PENDING_GRACE_MS = 60_000;

export interface ProxyRule {
  /** The contract operation whose request schema reads the body fields named below. */
  operation?: OperationId;
  /** The call names a resource of this kind: by route parameter (default `id`) or by a body field. */
  owned?: { kind: ResourceKind; param?: string; field?: string };
  /** The call creates a resource: mint and reserve its id (within quota), pass it in the context. */
  create?: CreateRule;
  /**
   * Body fields a create needs (non-blank): checked before the quota, so a create without a name answers the
   * operation's code for it (400/5004, 400/1007) even at the quota, as the specification lists them.
   */
  required?: readonly string[];
  /** The route parameter holding a ready-made analysis service id. */
  analysisParam?: string;
  /** The body field naming the service a batch task will run (its grant is checked). */
  batchServiceField?: string;
  /** The backend needs the ready-made services the account may run here (the batch service list). */
  grantedServices?: boolean;
}

/** `scheme://host[:port]` the caller used: links in answers (batch results) point back at this region. */
export function publicBase(c: Context<AppEnv>, url: URL): string {
  const host = c.req.header('host')?.trim();
  return host && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${url.protocol}//${host.toLowerCase()}` : url.origin;
}

export function forwardCall(c: Context<AppEnv>, extra: Partial<ForwardContext> = {}) {
  const config = c.get('config');
  const region = c.get('region');
  const caller = c.get('caller');
  const url = new URL(c.req.url);
  return forwardToBackend({
    region,
    backend: config.backends[region],
    timeoutMs: config.backendTimeoutMs,
    method: c.req.method,
    pathWithQuery: c.get('forwardPath') + url.search,
    headers: c.req.raw.headers,
    body: c.get('body').streams ? c.get('body').upload! : c.get('body').bytes,
    accountId: caller.accountId,
    context: { requestId: c.get('requestId'), lang: c.get('lang'), quotas: caller.quotas, publicBase: publicBase(c, url), ...extra },
    publicUrl: url,
  });
}

/** Asks the backend about the caller's resource whose create answer was lost, and applies its registry report. */
function reconcileWith(c: Context<AppEnv>): Reconcile {
  return async (kind, id) => {
    const config = c.get('config');
    const region = c.get('region');
    const caller = c.get('caller');
    const answer = await forwardToBackend({
      region,
      backend: config.backends[region],
      timeoutMs: config.backendTimeoutMs,
      method: 'GET',
      pathWithQuery: `/internal/registry/${kind}/${id}`,
      headers: new Headers(),
      body: null,
      accountId: caller.accountId,
      context: { requestId: c.get('requestId'), lang: c.get('lang') },
    });
    if (answer.registry) {
      await applyRegistryChanges(c.get('db'), caller.accountId, region, answer.registry);
      c.get('session').markOwnWrite();
    }
  };
}

/** Body fields the edge checks, through the operation's request schema in the contract. */
function readFields(c: Context<AppEnv>, rule: ProxyRule, names: string[]): Record<string, string> {
  if (!rule.operation) throw new Error(`a proxy rule reading ${names.join(', ')} names no contract operation`);
  return contractFields(c.get('body'), rule.operation, names);
}

export function proxy(rule: ProxyRule = {}): Handler<AppEnv> {
  return async function proxyToRegion(c) {
    const db = c.get('db');
    const session = c.get('session');
    const config = c.get('config');
    const caller = c.get('caller');
    const scope = { accountId: caller.accountId, region: c.get('region') };

    // Fields the edge read from the body and checked travel in the signed context: the backend refuses a
    // request it reads differently, and re-checks services against the granted list.
    const checked: Partial<ForwardContext> = {};
    const names = [rule.batchServiceField, rule.owned?.field, ...(rule.required ?? [])].filter((f): f is string => f !== undefined);
    if (names.length && c.get('body').streams) {
      // The field must be known before the call goes on (it travels in the signed context): read it whole.
      await c.get('body').readWhole();
      await c.get('body').upload!.verdict();
    }
    const fields: Record<string, string> = names.length ? readFields(c, rule, names) : {};
    for (const name of rule.required ?? []) {
      if (fields[name] === '') throw new ApiError(operationById(rule.operation! as string).fieldErrors?.[name] ?? 'invalidData', `${name} is required`);
    }
    if (rule.analysisParam) await requireServiceAccess(db, config, scope, c.req.param(rule.analysisParam) ?? '');
    if (rule.batchServiceField) await requireBatchServiceGrant(db, config, scope, fields[rule.batchServiceField]!);
    if (rule.analysisParam || rule.batchServiceField || rule.grantedServices) checked.services = await grantedServices(db, config, scope);
    if (rule.owned) {
      const id = rule.owned.field ? fields[rule.owned.field] : c.req.param(rule.owned.param ?? 'id');
      await requireOwned(db, rule.owned.kind, id, scope, {
        pendingWindowMs: config.backendTimeoutMs + PENDING_GRACE_MS,
        reconcile: reconcileWith(c),
        cacheTtlMs: config.cacheTtlMs,
        session,
      });
    }
    const resourceId = rule.create
      ? await reserveResource(db, rule.create, { ...scope, quotas: caller.quotas, pendingWindowMs: config.backendTimeoutMs + PENDING_GRACE_MS })
      : undefined;
    // The caller's registry changes (reserved, confirmed, discarded): its next calls read at least this state.
    if (resourceId) session.markOwnWrite();

    let answer;
    try {
      // Only the fields the edge acts on travel as checked (a long name is cut by the backend, not compared).
      const acted = [rule.batchServiceField, rule.owned?.field].filter((f): f is string => f !== undefined && fields[f] !== undefined);
      if (acted.length) checked.fields = Object.fromEntries(acted.map((f) => [f, fields[f]!]));
      answer = await forwardCall(c, { ...checked, ...(resourceId ? { resourceId } : {}) });
    } catch (err) {
      // After a timeout the backend may still create it: the row stays pending (never usable, not counted later).
      const outcomeUnknown = err instanceof ApiError && err.code === 9003;
      if (resourceId && !outcomeUnknown) await discardPending(db, resourceId);
      throw err;
    }
    if (answer.registry) {
      await applyRegistryChanges(db, caller.accountId, scope.region, answer.registry);
      session.markOwnWrite();
    }
    if (resourceId && !answer.registry?.live?.includes(resourceId)) await discardPending(db, resourceId);
    return answer.response;
  };
}
