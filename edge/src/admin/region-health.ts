/**
 * Probes each region's backend for `/admin/health`: its `/readyz` (database, queue, inference pool,
 * models), with a short time limit, so the operator sees which region is down and why.
 */
import { REGIONS, type RegionId } from '@iris/shared';
import type { EdgeConfig } from '../config.js';

const PROBE_TIMEOUT_MS = 3000;

export interface RegionHealth {
  backend_configured: boolean;
  reachable: boolean;
  ready: boolean;
  status?: number;
  checks?: unknown;
  error?: string;
  ms?: number;
}

async function probe(url: string): Promise<RegionHealth> {
  const started = Date.now();
  try {
    const res = await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await res.json().catch(() => null)) as { ready?: unknown; checks?: unknown } | null;
    return { backend_configured: true, reachable: true, ready: res.status === 200 && body?.ready === true, status: res.status, checks: body?.checks, ms: Date.now() - started };
  } catch (err) {
    return { backend_configured: true, reachable: false, ready: false, error: (err as Error).message, ms: Date.now() - started };
  }
}

export async function regionHealth(config: Pick<EdgeConfig, 'backends'>): Promise<Record<RegionId, RegionHealth>> {
  const results = await Promise.all(
    REGIONS.map(async (region) => {
      const backend = config.backends[region];
      const configured = Boolean(backend.url && backend.secret);
      return [region, configured ? await probe(backend.url!) : { backend_configured: false, reachable: false, ready: false }] as const;
    }),
  );
  return Object.fromEntries(results) as Record<RegionId, RegionHealth>;
}
