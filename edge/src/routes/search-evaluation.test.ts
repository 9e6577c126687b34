import { beforeAll, describe, expect, it } from 'vitest';
import { callJson, keyHeaders, newAccount, seedResource, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
let stranger: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
  stranger = await newAccount();
});

const path = (id: string) => `/customer_services/_0000172/${id}/evaluation`;

describe('search service self-evaluation through the edge (Iris extension)', () => {
  it('forwards start and poll of the owner, answers 404/2002 for unknown and foreign services and other regions', async () => {
    const id = await seedResource('search_service', owner.accountId);
    for (const method of ['POST', 'GET'] as const) {
      const init = method === 'POST' ? { method, headers: { ...keyHeaders(owner), 'content-type': 'application/json' }, body: JSON.stringify({ sample_size: 20 }) } : { method, headers: keyHeaders(owner) };
      const mine = await callJson<BackendEcho>(path(id), init);
      expect(mine.status, method).toBe(200);
      expect(mine.body.url).toBe(path(id));
      expect(mine.body.method).toBe(method);
      expect(mine.body.account).toBe(owner.accountId);

      const unknown = await callJson(path('doesnotexist0000'), { ...init, headers: { ...init.headers } });
      expect([unknown.status, unknown.body.error_code]).toEqual([404, 2002]);
      const foreign = await callJson(path(id), { ...init, headers: { ...init.headers, ...keyHeaders(stranger) } });
      expect([foreign.status, foreign.body.error_code]).toEqual([404, 2002]);
      const otherRegion = await callJson(path(id), { ...init, host: 'ap-southeast.localhost:8787' });
      expect([otherRegion.status, otherRegion.body.error_code]).toEqual([404, 2002]);
    }
    expect((await callJson(path(id), {})).status).toBe(401);
  });

  it('is described in /openapi.json as an Iris extension', async () => {
    const doc = await callJson<{ paths: Record<string, Record<string, Record<string, unknown>>> }>('/openapi.json', {});
    const item = doc.body.paths['/customer_services/_0000172/{service_id}/evaluation'];
    expect(Object.keys(item ?? {}).sort()).toEqual(['get', 'post']);
    expect(JSON.stringify(item)).toMatch(/iris/i);
  });
});
