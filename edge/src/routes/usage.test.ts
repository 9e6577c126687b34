import { beforeAll, describe, expect, it } from 'vitest';
import { callJson, keyHeaders, newAccount, seedResource, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
let stranger: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
  stranger = await newAccount();
});

describe('/iris/usage and /iris/{kind}/{id}/export', () => {
  it('forwards a usage query with its range to the region of the address called, as the caller’s account', async () => {
    for (const host of [undefined, 'ap-southeast.localhost:8787']) {
      const res = await callJson<BackendEcho>('/iris/usage?from=2026-01-01&to=2026-01-31', { headers: keyHeaders(owner), ...(host ? { host } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.url).toBe('/iris/usage?from=2026-01-01&to=2026-01-31');
      expect(res.body.account).toBe(owner.accountId);
    }
    expect((await callJson('/iris/usage', {})).status).toBe(401);
    expect((await callJson('/iris/usage', { method: 'POST', headers: keyHeaders(owner) })).body.error_code).toBe(1108);
  });

  for (const [kind, path, unknown, foreign] of [
    ['image_set', 'image_sets', [404, 2001], [403, 1002]],
    ['product_set', 'product_sets', [404, 1004], [403, 1005]],
    ['training_set', 'training_sets', [404, 2001], [404, 2001]],
  ] as const) {
    it(`exports a ${kind} only for its owner, in its region`, async () => {
      const id = await seedResource(kind, owner.accountId);
      const mine = await callJson<BackendEcho>(`/iris/${path}/${id}/export?status=failed`, { headers: keyHeaders(owner) });
      expect(mine.status).toBe(200);
      expect(mine.body.url).toBe(`/iris/${path}/${id}/export?status=failed`);
      const gone = await callJson(`/iris/${path}/doesnotexist0000/export`, { headers: keyHeaders(owner) });
      expect([gone.status, gone.body.error_code]).toEqual(unknown);
      const theirs = await callJson(`/iris/${path}/${id}/export`, { headers: keyHeaders(stranger) });
      expect([theirs.status, theirs.body.error_code]).toEqual(foreign);
      const elsewhere = await callJson(`/iris/${path}/${id}/export`, { headers: keyHeaders(owner), host: 'ap-southeast.localhost:8787' });
      expect([elsewhere.status, elsewhere.body.error_code]).toEqual(unknown);
    });
  }

  for (const [kind, path, code] of [
    ['batch_task', 'batch_tasks', [400, 400011]],
    ['search_service', 'search_services', [404, 2002]],
    ['custom_service', 'custom_services', [404, 2002]],
  ] as const) {
    it(`reads a ${kind}'s support document only for its owner`, async () => {
      const id = await seedResource(kind, owner.accountId);
      const mine = await callJson<BackendEcho>(`/iris/${path}/${id}/state`, { headers: keyHeaders(owner) });
      expect(mine.status).toBe(200);
      expect(mine.body.url).toBe(`/iris/${path}/${id}/state`);
      for (const other of [await callJson(`/iris/${path}/${id}/state`, { headers: keyHeaders(stranger) }), await callJson(`/iris/${path}/nosuchid0000/state`, { headers: keyHeaders(owner) })]) {
        expect([other.status, other.body.error_code]).toEqual(code);
      }
    });
  }
});
