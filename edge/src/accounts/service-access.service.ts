/** Ready-made analysis services: offered in the region (catalogue) and granted to the account. */
import { ApiError, isAnalysisServiceId, serviceById, type ErrorKey } from '@iris/shared';
import type { EdgeConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { Scope } from '../registry/ownership.service.js';
import { regionOffers } from '../regions/region-routing.js';
import { grantCache } from '../cache/hot-path.cache.js';
import { listExplicitGrants } from './grant.repo.js';

/** The account's explicit grants and revocations: one query per account, then the isolate cache. */
export async function explicitGrants(db: Database, config: Pick<EdgeConfig, 'cacheTtlMs'>, accountId: number): Promise<ReadonlyMap<string, boolean>> {
  return (await grantCache.get(String(accountId), config.cacheTtlMs, () => listExplicitGrants(db, accountId))) ?? new Map();
}

export async function isGranted(db: Database, config: Pick<EdgeConfig, 'grantsByDefault' | 'cacheTtlMs'>, accountId: number, serviceId: string): Promise<boolean> {
  return (await explicitGrants(db, config, accountId)).get(serviceId) ?? config.grantsByDefault;
}

/**
 * A ready-made service must be offered in the region (the catalogue narrowed by REGION_SERVICES; else `unknown`,
 * 404/1001 on analysis calls) and granted to the account (else `notGranted`, 403/2005 on analysis calls).
 */
export async function requireServiceAccess(
  db: Database,
  config: EdgeConfig,
  scope: Scope,
  serviceId: string,
  unknown: ErrorKey = 'classifyServiceUnknown',
  notGranted: ErrorKey = 'serviceNotGranted',
): Promise<void> {
  if (!serviceById(serviceId) || !regionOffers(config, scope.region, serviceId)) {
    throw new ApiError(unknown, `service ${serviceId} does not exist`);
  }
  if (!(await isGranted(db, config, scope.accountId, serviceId))) {
    throw new ApiError(notGranted, `the account is not authorized for service ${serviceId}`);
  }
}

/**
 * The service a batch task is to run: a ready-made one passes the same checks as an analysis call, so neither
 * can be worked around in bulk, answered with the batch family's codes: 400007 when the region does not offer
 * it, 400008 when the account is not granted it (it is not among the services `/batch/_1000001/services` lists).
 * Other ids (custom classifiers, unknown ids) are the backend's to judge.
 */
export async function requireBatchServiceGrant(db: Database, config: EdgeConfig, scope: Scope, serviceId: string): Promise<void> {
  if (isAnalysisServiceId(serviceId)) await requireServiceAccess(db, config, scope, serviceId, 'batchServiceUnknown', 'batchServiceUnsupported');
}

/** Ready-made services the account may run in the region (offered there and granted): the backend re-checks with it. */
export async function grantedServices(db: Database, config: EdgeConfig, scope: Scope): Promise<string[]> {
  const explicit = await explicitGrants(db, config, scope.accountId);
  return [...config.regionServices[scope.region]].filter((id) => explicit.get(id) ?? config.grantsByDefault).sort();
}
