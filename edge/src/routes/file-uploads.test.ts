import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceKind } from '@iris/shared';
import { callJson, keyHeaders, newAccount, seedResource, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
let stranger: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
  stranger = await newAccount();
});

const boundary = '----irisfileupload0123';
const picture = [`--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="a.jpg"', 'Content-Type: image/jpeg', '', 'jpeg bytes', `--${boundary}--`, ''].join('\r\n');
const upload = { method: 'POST', body: picture, type: `multipart/form-data; boundary=${boundary}` };
const lookup = { method: 'POST', body: JSON.stringify({ files: [{ name: 'a.jpg', sha256: 'a'.repeat(64) }] }), type: 'application/json' };

const CASES: { kind: ResourceKind; path: (id: string) => string; call: typeof upload; unknown: [number, number]; foreign: [number, number] }[] = [
  { kind: 'image_set', path: (id) => `/iris/image_sets/${id}/files`, call: upload, unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'image_set', path: (id) => `/iris/image_sets/${id}/files/lookup`, call: lookup, unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'product_set', path: (id) => `/iris/product_sets/${id}/files`, call: upload, unknown: [404, 1004], foreign: [403, 1005] },
  { kind: 'product_set', path: (id) => `/iris/product_sets/${id}/files/lookup`, call: lookup, unknown: [404, 1004], foreign: [403, 1005] },
];

describe('pictures from files: the set must belong to the caller, in this region', () => {
  for (const c of CASES) {
    it(`POST ${c.path('{id}')}: owner forwarded, unknown ${c.unknown.join('/')}, foreign ${c.foreign.join('/')}, other region unknown`, async () => {
      const id = await seedResource(c.kind, owner.accountId);
      const send = (path: string, who: TestAccount, host?: string) =>
        callJson<BackendEcho & { error_code?: number }>(path, { method: c.call.method, body: c.call.body, headers: { ...keyHeaders(who), 'content-type': c.call.type }, ...(host ? { host } : {}) });
      const mine = await send(c.path(id), owner);
      expect(mine.status).toBe(200);
      expect(mine.body.url).toBe(c.path(id));
      expect(mine.body.account).toBe(owner.accountId);

      const unknown = await send(c.path('doesnotexist0000'), owner);
      expect([unknown.status, unknown.body.error_code]).toEqual(c.unknown);
      const foreign = await send(c.path(id), stranger);
      expect([foreign.status, foreign.body.error_code]).toEqual(c.foreign);
      const otherRegion = await send(c.path(id), owner, 'ap-southeast.localhost:8787');
      expect([otherRegion.status, otherRegion.body.error_code]).toEqual(c.unknown);
    });
  }

  it('serves no other method or kind under the files path', async () => {
    const id = await seedResource('training_set', owner.accountId);
    for (const [method, path] of [
      ['GET', `/iris/image_sets/${id}/files`],
      ['POST', `/iris/training_sets/${id}/files`],
    ] as const) {
      const res = await callJson(path, { method, headers: keyHeaders(owner) });
      expect([res.status, res.body.error_code], `${method} ${path}`).toEqual([404, 1108]);
    }
  });
});
