/** Ready-made analysis services: offered in the region (catalogue) and granted to the account. */
import { ApiError, isAnalysisServiceId, serviceById } from '@iris/shared';
import type { EdgeConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { Scope } from '../registry/ownership.service.js';
import { regionOffers } from '../regions/region-routing.js';
import { explicitGrant } from './grant.repo.js';

export async function isGranted(db: Database, config: Pick<EdgeConfig, 'grantsByDefault'>, accountId: number, serviceId: string): Promise<boolean> {
  return (await explicitGrant(db, accountId, serviceId)) ?? config.grantsByDefault;
}

export async function requireServiceAccess(db: Database, config: EdgeConfig, scope: Scope, serviceId: string): Promise<void> {
  if (!serviceById(serviceId) || !regionOffers(config, scope.region, serviceId)) {
    throw new ApiError('classifyServiceUnknown', `service ${serviceId} does not exist`);
  }
  if (!(await isGranted(db, config, scope.accountId, serviceId))) {
    throw new ApiError('serviceNotGranted', `the account is not authorized for service ${serviceId}`);
  }
}

/**
 * The service a batch task is to run, when it is a ready-made one: it must be offered in this region (the
 * edge's catalogue, REGION_SERVICES included; else 400007 as for an unknown service) and granted to the
 * account (403/2005), so neither can be worked around in bulk. Other ids (custom classifiers, unknown ids)
 * are the backend's to judge.
 */
export async function requireBatchServiceGrant(db: Database, config: EdgeConfig, scope: Scope, serviceId: string): Promise<void> {
  if (!isAnalysisServiceId(serviceId)) return;
  if (!regionOffers(config, scope.region, serviceId)) throw new ApiError('batchServiceUnknown', `service ${serviceId} does not exist in this region`);
  if (!(await isGranted(db, config, scope.accountId, serviceId))) {
    throw new ApiError('serviceNotGranted', `the account is not authorized for service ${serviceId}`);
  }
}
