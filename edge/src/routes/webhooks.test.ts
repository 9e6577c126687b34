import { beforeAll, describe, expect, it } from 'vitest';
import { callJson, keyHeaders, newAccount, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
});

describe('/iris/webhooks: the account settings travel to the region of the address called', () => {
  it('forwards list, register and delete with the caller as account, to the region of the host', async () => {
    for (const [method, path, host] of [
      ['GET', '/iris/webhooks', undefined],
      ['POST', '/iris/webhooks', undefined],
      ['DELETE', '/iris/webhooks/abc123', 'ap-southeast.localhost:8787'],
    ] as const) {
      const res = await callJson<BackendEcho>(path, { method, headers: { ...keyHeaders(owner), 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"url":"https://example.com/hook"}' } : {}), ...(host ? { host } : {}) });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(res.body.url).toBe(path);
      expect(res.body.method).toBe(method);
      expect(res.body.account).toBe(owner.accountId);
      expect(res.body.backend).toBe(host ? 'ap-southeast' : 'cn-east');
    }
  });

  it('answers 404/1108 for other methods on an endpoint and deeper paths, and 401 without a key', async () => {
    for (const [method, path] of [['PUT', '/iris/webhooks/abc'], ['GET', '/iris/webhooks/abc'], ['GET', '/iris/webhooks/abc/deliveries']] as const) {
      const res = await callJson(path, { method, headers: keyHeaders(owner) });
      expect([res.status, res.body.error_code], `${method} ${path}`).toEqual([404, 1108]);
    }
    const anonymous = await callJson('/iris/webhooks', {});
    expect(anonymous.status).toBe(401);
  });
});
