/**
 * Host → region. A configured host name (REGION_HOSTS) wins; otherwise a host starting with a region id
 * and a dot (`ap-southeast.localhost:8787`, `ap-southeast.api.example.com`) selects that region; anything
 * else (`127.0.0.1`, `localhost`, unknown names) is the default region.
 */
import { DEFAULT_REGION, REGIONS, type RegionId } from '@iris/shared';
import type { EdgeConfig } from '../config.js';

export function regionForHost(host: string | null | undefined, config: Pick<EdgeConfig, 'regionHosts'>): RegionId {
  const withPort = (host ?? '').trim().toLowerCase();
  const hostname = withPort.replace(/:\d+$/, '').replace(/\.$/, '');
  const configured = config.regionHosts.get(withPort) ?? config.regionHosts.get(hostname);
  if (configured) return configured;
  return REGIONS.find((region) => hostname.startsWith(`${region}.`)) ?? DEFAULT_REGION;
}

/** Whether a ready-made analysis service is offered in a region. */
export function regionOffers(config: Pick<EdgeConfig, 'regionServices'>, region: RegionId, serviceId: string): boolean {
  return config.regionServices[region].has(serviceId);
}
