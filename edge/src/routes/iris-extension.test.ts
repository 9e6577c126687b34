import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceKind } from '@iris/shared';
import { callJson, keyHeaders, newAccount, seedResource, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
let stranger: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
  stranger = await newAccount();
});

const CASES: { kind: ResourceKind; path: (id: string) => string; unknown: [number, number]; foreign: [number, number] }[] = [
  { kind: 'image_set', path: (id) => `/iris/image_sets/${id}/records?page=1&count=5`, unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'image_set', path: (id) => `/iris/image_sets/${id}/records/12/thumbnail?size=128`, unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'product_set', path: (id) => `/iris/product_sets/${id}/records`, unknown: [404, 1004], foreign: [403, 1005] },
  { kind: 'product_set', path: (id) => `/iris/product_sets/${id}/records/3/thumbnail`, unknown: [404, 1004], foreign: [403, 1005] },
  { kind: 'training_set', path: (id) => `/iris/training_sets/${id}/records`, unknown: [404, 2001], foreign: [404, 2001] },
  { kind: 'training_set', path: (id) => `/iris/training_sets/${id}/labels`, unknown: [404, 2001], foreign: [404, 2001] },
];

describe('/iris extension routes (console): the set must belong to the caller, in this region', () => {
  for (const c of CASES) {
    it(`GET ${c.path('{id}')}: owner forwarded as is, unknown ${c.unknown.join('/')}, foreign ${c.foreign.join('/')}, other region unknown`, async () => {
      const id = await seedResource(c.kind, owner.accountId);
      const mine = await callJson<BackendEcho>(c.path(id), { headers: keyHeaders(owner) });
      expect(mine.status).toBe(200);
      expect(mine.body.url).toBe(c.path(id));
      expect(mine.body.account).toBe(owner.accountId);

      const unknown = await callJson(c.path('doesnotexist0000'), { headers: keyHeaders(owner) });
      expect([unknown.status, unknown.body.error_code]).toEqual(c.unknown);
      const foreign = await callJson(c.path(id), { headers: keyHeaders(stranger) });
      expect([foreign.status, foreign.body.error_code]).toEqual(c.foreign);
      const otherRegion = await callJson(c.path(id), { headers: keyHeaders(owner), host: 'ap-southeast.localhost:8787' });
      expect([otherRegion.status, otherRegion.body.error_code]).toEqual(c.unknown);
    });
  }

  it('answers 404/1108 for anything else under /iris (other kinds, other methods), and 401 without a key', async () => {
    const id = await seedResource('image_set', owner.accountId);
    for (const [method, path] of [
      ['GET', `/iris/search_services/${id}/records`],
      ['POST', `/iris/image_sets/${id}/records`],
      ['DELETE', `/iris/image_sets/${id}/records/1/thumbnail`],
      ['GET', '/iris'],
    ] as const) {
      const res = await callJson(path, { method, headers: keyHeaders(owner) });
      expect([res.status, res.body.error_code], `${method} ${path}`).toEqual([404, 1108]);
    }
    const anonymous = await callJson(`/iris/image_sets/${id}/records`, {});
    expect(anonymous.status).toBe(401);
  });
});
