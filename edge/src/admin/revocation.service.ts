/**
 * Revocation reaches queued work: when an account is disabled or a grant revoked, every configured region
 * backend is told at once (signed operator call `POST /admin/revocations`), and stops the account's queued
 * and running batch tasks, downloads and trainings (or only that service's tasks). New calls are refused
 * by the edge already; this covers what was accepted before.
 */
import type { Context } from 'hono';
import { REGIONS } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { forwardToBackend } from '../forward/forward.service.js';
import { OPERATOR_ACCOUNT_ID } from './region-forward.routes.js';

export const REVOCATION_HEADER = 'x-iris-revocation';

/** Tells every configured region; answers `region=done|failed|unreachable` per region (for the admin answer). */
export async function revokeQueuedWork(c: Context<AppEnv>, target: { accountId: number; serviceId?: string }): Promise<string> {
  const config = c.get('config');
  const body = new TextEncoder().encode(JSON.stringify({ account_id: target.accountId, ...(target.serviceId ? { service_id: target.serviceId } : {}) }));
  const outcomes = await Promise.all(
    REGIONS.filter((region) => config.backends[region].url).map(async (region) => {
      try {
        const answer = await forwardToBackend({
          region,
          backend: config.backends[region],
          timeoutMs: config.backendTimeoutMs,
          method: 'POST',
          pathWithQuery: '/admin/revocations',
          headers: new Headers({ 'content-type': 'application/json' }),
          body,
          accountId: OPERATOR_ACCOUNT_ID,
          context: { requestId: c.get('requestId'), lang: c.get('lang') },
        });
        return `${region}=${answer.response.status === 200 ? 'done' : 'failed'}`;
      } catch {
        return `${region}=unreachable`;
      }
    }),
  );
  return outcomes.join(',');
}
