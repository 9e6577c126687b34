import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '@iris/shared';
import { call, callJson, echoBytes, keyHeaders, newAccount, seedResource, signedHeaders, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

describe('edge → backend trust', () => {
  it('forwards none of the caller credentials (x-ca-*, authorization, requestmethod)', async () => {
    const headers = { ...(await signedHeaders(account)), authorization: 'Bearer caller-token', cookie: 'a=b', 'x-custom': 'kept' };
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers });
    expect(res.status).toBe(200);
    const names = Object.keys(res.body.headers);
    expect(names.filter((n) => n.startsWith('x-ca-') || n === 'authorization' || n === 'cookie' || n === 'requestmethod')).toEqual([]);
    expect(res.body.headers['x-custom']).toBe('kept');
    expect(res.body.account).toBe(account.accountId);
  });

  it('binds the body (length and SHA-256) and a fresh nonce in the signed context', async () => {
    const body = 'name=abc&description=' + 'x'.repeat(1000);
    const headers = { ...keyHeaders(account), 'content-type': 'application/x-www-form-urlencoded' };
    const a = await callJson<BackendEcho>('/get_image_sets/_0000014', { method: 'POST', headers, body });
    const b = await callJson<BackendEcho>('/get_image_sets/_0000014', { method: 'POST', headers, body });
    expect(a.body.verified).toBe(true);
    const received = echoBytes(a.body);
    expect(a.body.context?.body).toEqual({ length: received.byteLength, sha256: await sha256Hex(received) });
    expect(a.body.context?.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(b.body.context?.nonce).not.toBe(a.body.context?.nonce);
    const empty = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers: keyHeaders(account) });
    expect(empty.body.context?.body).toBeUndefined();
  });

  it('carries the fields it checked, the granted services and the public base address in the signed context', async () => {
    const form = new FormData();
    form.append('service_id', ' _0000049 ');
    form.append('urls', new File(['http://a.cn/1.jpg\nhttp://a.cn/2.jpg\n'], 'urls.txt', { type: 'text/plain' }));
    const res = await callJson<{ data: BackendEcho }>('/batch/_1000001/task/prepare', { method: 'POST', headers: keyHeaders(account), body: form, host: 'ap-southeast.localhost:8787' });
    expect(res.status).toBe(200);
    const context = (res.body as unknown as BackendEcho).context!;
    expect(context.fields).toEqual({ service_id: '_0000049' });
    expect(context.services).toContain('_0000049');
    expect(context.services).not.toContain('_0000143'); // receipts: cn-east only
    expect(context.publicBase).toBe('http://ap-southeast.localhost:8787');

    const taskId = await seedResource('batch_task', account.accountId);
    const apply = await callJson<BackendEcho>('/batch/_1000001/task/apply', {
      method: 'POST',
      headers: { ...keyHeaders(account), 'content-type': 'application/x-www-form-urlencoded' },
      body: `task_id=${taskId}`,
    });
    expect(apply.body.context?.fields).toEqual({ task_id: taskId });
  });

  it('forwards a body byte for byte whatever its size (hash computed over the same bytes)', async () => {
    const bytes = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...keyHeaders(account), 'content-type': 'multipart/form-data; boundary=x' },
      body: bytes,
      env: { EDGE_STREAM_MIN_BYTES: String(64 * 1024 * 1024) },
    });
    expect(res.status).toBe(200);
    expect(res.body.context?.body?.sha256).toBe(await sha256Hex(bytes));
    // Any other body past 1 MB is refused before it is read, as the backend would.
    const plain = await callJson('/get_image_sets/_0000014', { method: 'POST', headers: { ...keyHeaders(account), 'content-type': 'application/octet-stream' }, body: bytes });
    expect(plain.status).toBe(413);
    expect(plain.body).toMatchObject({ error_code: 1110 });
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(account) })).status).toBe(200);
  });
});
