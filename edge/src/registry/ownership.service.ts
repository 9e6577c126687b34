/**
 * Ownership rules of the registry (docs/architecture.md): by-id checks with each kind's codes, and pending
 * rows for creates, counted against the account's quota.
 */
import { ApiError, RESOURCE_ID_PATTERN, newResourceId, type ErrorKey, type Quotas, type RegionId, type ResourceKind } from '@iris/shared';
import type { CallSession } from '../db/call-session.js';
import type { Database } from '../db/database.js';
import type { Resource } from '../db/schema.js';
import { forgetResources, resourceCache } from '../cache/hot-path.cache.js';
import { findResource, insertPending } from './registry.repo.js';

interface KindRules {
  label: string;
  unknown: ErrorKey;
  foreign: ErrorKey;
}

export const KIND_RULES: Record<ResourceKind, KindRules> = {
  image_set: { label: 'image set', unknown: 'setNotFound', foreign: 'imageSetForbidden' },
  product_set: { label: 'product set', unknown: 'productSetNotFound', foreign: 'productSetForbidden' },
  training_set: { label: 'training set', unknown: 'setNotFound', foreign: 'setNotFound' },
  search_service: { label: 'service', unknown: 'serviceNotFound', foreign: 'serviceNotFound' },
  custom_service: { label: 'service', unknown: 'serviceNotFound', foreign: 'serviceNotFound' },
  batch_task: { label: 'task', unknown: 'batchTaskUnknown', foreign: 'batchTaskUnknown' },
};

export type QuotaName = 'imageSets' | 'trainingSets' | 'customServices' | 'productSets' | 'searchServices';

const QUOTA_ERRORS: Record<QuotaName, { key: ErrorKey; message: string }> = {
  imageSets: { key: 'imageSetQuota', message: 'maximum number of image sets reached' },
  trainingSets: { key: 'trainingSetQuota', message: 'maximum number of training sets reached' },
  customServices: { key: 'customServiceQuota', message: 'quota of creatable services exceeded' },
  productSets: { key: 'productSetQuota', message: 'maximum number of product sets reached' },
  searchServices: { key: 'searchServiceQuota', message: 'maximum number of search services reached' },
};

export interface Scope {
  accountId: number;
  region: RegionId;
}

/**
 * Settles a create whose answer never arrived: asks the region's backend whether the caller's resource
 * exists and applies its registry report (the row turns live, or is retired).
 */
export type Reconcile = (kind: ResourceKind, id: string) => Promise<void>;

export interface OwnershipOptions {
  /** Pending rows older than this may still have been created by the backend: they are reconciled. */
  pendingWindowMs: number;
  reconcile: Reconcile;
  /** Live rows are kept in the isolate this long (0 = always read D1). */
  cacheTtlMs?: number;
  /** The call's D1 session: a row a replica does not show live yet is read again on the primary. */
  session?: Pick<CallSession, 'retryOnPrimary'>;
  now?: number;
}

/**
 * Passes only for a live resource of this kind, owned by the caller, in the region of the request.
 * Another region's resource does not exist here; another account's answers with the kind's "foreign" code.
 * The caller's own row left pending by a timed-out create is settled with the backend first.
 */
export async function requireOwned(db: Database, kind: ResourceKind, id: string | undefined, scope: Scope, options?: OwnershipOptions): Promise<void> {
  const rules = KIND_RULES[kind];
  const unknown = () => new ApiError(rules.unknown, id ? `${rules.label} ${id} does not exist` : `${rules.label} does not exist`);
  if (!id || !RESOURCE_ID_PATTERN.test(id)) throw unknown();
  const read = () => findResource(db, id);
  const load = options?.session ? () => options.session!.retryOnPrimary(read, settledRow) : read;
  let row = await resourceCache.get(id, options?.cacheTtlMs ?? 0, load, (r) => r.state === 'live');
  const now = options?.now ?? Date.now();
  const unsettled = row?.state === 'pending' && row.kind === kind && row.accountId === scope.accountId && row.region === scope.region;
  if (options && unsettled && row!.createdAt < now - options.pendingWindowMs) {
    await options.reconcile(kind, id);
    forgetResources([id]);
    row = await findResource(db, id);
  }
  if (!row || row.kind !== kind || row.state !== 'live' || row.region !== scope.region) throw unknown();
  if (row.accountId !== scope.accountId) throw new ApiError(rules.foreign, `${rules.label} ${id} is not owned by the caller`);
}

/**
 * A row whose state can no longer move forward in a way the caller is waiting for: absent and pending rows
 * may be a lagging replica's view of a create that has already been confirmed on the primary.
 */
function settledRow(row: Resource | undefined): boolean {
  return row !== undefined && row.state !== 'pending';
}

export interface CreateRule {
  kind: ResourceKind;
  quota?: QuotaName;
}

/**
 * Mints the id of a new resource and records it as pending. Pending rows younger than `pendingWindowMs`
 * count against the quota, so concurrent creates cannot overshoot it.
 */
export async function reserveResource(
  db: Database,
  rule: CreateRule,
  scope: Scope & { quotas: Quotas; pendingWindowMs: number },
  now = Date.now(),
): Promise<string> {
  const id = newResourceId();
  const quota = rule.quota ? { limit: scope.quotas[rule.quota], pendingSince: now - scope.pendingWindowMs } : undefined;
  const inserted = await insertPending(db, { id, kind: rule.kind, accountId: scope.accountId, region: scope.region, now, quota });
  if (!inserted) {
    const error = QUOTA_ERRORS[rule.quota!];
    throw new ApiError(error.key, error.message);
  }
  return id;
}
