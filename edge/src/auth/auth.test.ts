import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { countNonces } from './nonce.repo.js';
import { database } from '../db/database.js';
import { admin, call, callJson, echoBody, keyHeaders, newAccount, signedHeaders, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

describe('access key', () => {
  it('refuses a call without x-ca-accesskeyid (401/1101), in the path family shape', async () => {
    const resource = await callJson('/image_sets/_0000014', { method: 'POST' });
    expect(resource.status).toBe(401);
    expect(resource.body).toMatchObject({ error_code: 1101 });
    expect(typeof resource.body.request_id).toBe('string');

    const analysis = await callJson<{ data: Record<string, unknown>; status: number }>('/detect/_0000049', { method: 'POST' });
    expect(analysis.status).toBe(401);
    expect(analysis.body.status).toBe(401);
    expect(analysis.body.data).toMatchObject({ is_err: 1, error_code: 1101 });

    const batch = await callJson<{ data: Record<string, unknown>; is_error: number }>('/batch/_1000001/task/prepare', { method: 'POST' });
    expect(batch.body).toMatchObject({ is_error: 1, data: { error_code: 1101 } });
  });

  it('refuses an unknown key (401/1102)', async () => {
    const { status, body } = await callJson('/get_image_sets/_0000014', { headers: { 'x-ca-version': '1', 'x-ca-accesskeyid': 'nosuchkey' } });
    expect(status).toBe(401);
    expect(body.error_code).toBe(1102);
  });

  it('refuses a disabled key and a disabled account (403/1103)', async () => {
    const other = await newAccount();
    await admin('POST', `/keys/${other.keyId}/disable`);
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(other) })).body.error_code).toBe(1103);

    const third = await newAccount();
    await admin('POST', `/accounts/${third.accountId}/disable`);
    const res = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(third) });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe(1103);
    await admin('POST', `/accounts/${third.accountId}/enable`);
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(third) })).status).toBe(200);
  });

  it('accepts version 1, 1.0 or none, refuses others (400/1107)', async () => {
    for (const version of ['1', '1.0']) {
      expect((await call('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': account.keyId, 'x-ca-version': version } })).status).toBe(200);
    }
    expect((await call('/get_image_sets/_0000014', { method: 'DELETE', headers: { 'x-ca-accesskeyid': account.keyId } })).status).toBe(200);
    const bad = await callJson('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': account.keyId, 'x-ca-version': '2' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe(1107);
  });

  it('reads header names case-insensitively and forwards the account', async () => {
    const { status, body } = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers: { 'X-CA-Version': '1.0', 'X-Ca-AccessKeyId': account.keyId } });
    expect(status).toBe(200);
    expect(body.verified).toBe(true);
    expect(body.account).toBe(account.accountId);
  });
});

describe('signed requests', () => {
  it('accepts a signed urlencoded form and forwards the raw body', async () => {
    const params: [string, string][] = [['url', 'https://example.com/a.jpg'], ['loc', '0-0-1-1'], ['count', '20']];
    const body = new URLSearchParams(params).toString();
    const headers = await signedHeaders(account, { params });
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.status).toBe(200);
    expect(echoBody(res.body)).toBe(body);
  });

  it('accepts a signed multipart body: text fields signed, file part not', async () => {
    const form = new FormData();
    form.append('service_id', '_0000049');
    form.append('urls', new File(['http://a.cn/1.jpg\nhttp://a.cn/2.jpg\n'], 'urls.txt', { type: 'text/plain' }));
    const headers = await signedHeaders(account, { params: [['service_id', '_0000049']] });
    const res = await call('/batch/_1000001/services', { method: 'POST', headers, body: form });
    expect(res.status).toBe(200);
  });

  it('accepts a signed JSON body (exact text appended) and refuses it after a byte changes', async () => {
    const jsonBody = '{"name": "new name"}';
    const headers = { ...(await signedHeaders(account, { jsonBody })), 'content-type': 'application/json' };
    expect((await call('/get_image_sets/_0000014', { method: 'PUT', headers, body: jsonBody })).status).toBe(200);
    const tampered = { ...(await signedHeaders(account, { jsonBody })), 'content-type': 'application/json' };
    const res = await callJson('/get_image_sets/_0000014', { method: 'PUT', headers: tampered, body: '{"name": "new  name"}' });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe(1104);
  });

  it('signs query-string parameters, on GET and DELETE with bodies too', async () => {
    const headers = await signedHeaders(account, { params: [['page', '2'], ['count', '5'], ['ids', 'a,b']], requestMethod: 'post' });
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014?page=2&count=5', {
      method: 'DELETE',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ids=a%2Cb',
    });
    expect(res.status).toBe(200);
    expect(res.body.method).toBe('DELETE');
    expect(echoBody(res.body)).toBe('ids=a%2Cb');
  });

  it('accepts a value signed after Python-style stripping', async () => {
    const headers = await signedHeaders(account, { params: [['url', '  https://example.com/a.jpg\n']], strip: true });
    const res = await call('/get_image_sets/_0000014', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([['url', '  https://example.com/a.jpg\n']]).toString(),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a wrong signature (401/1104) and a missing one when the key requires it', async () => {
    const headers = { ...(await signedHeaders(account)), 'x-ca-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' };
    expect((await callJson('/get_image_sets/_0000014', { headers })).body.error_code).toBe(1104);

    const strict = await newAccount({ signatureRequired: true });
    const unsigned = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(strict) });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error_code).toBe(1104);
    expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(strict) })).status).toBe(200);
  });

  it('refuses a timestamp outside the allowed skew (401/1105); the skew is configurable', async () => {
    const old = Math.floor(Date.now() / 1000) - 3600;
    const res = await callJson('/get_image_sets/_0000014', { headers: await signedHeaders(account, { timestamp: old }) });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe(1105);
    const lenient = await call('/get_image_sets/_0000014', { headers: await signedHeaders(account, { timestamp: old }), env: { SIGNATURE_MAX_SKEW_SECONDS: '7200' } });
    expect(lenient.status).toBe(200);
  });

  it('accepts only the nonce lengths released clients send (16 to 36 characters; 401/1104 otherwise)', async () => {
    for (const nonce of ['n'.repeat(15), 'n'.repeat(37), 'x'.repeat(128)]) {
      const res = await callJson('/get_image_sets/_0000014', { headers: await signedHeaders(account, { nonce }) });
      expect(res.status, nonce).toBe(401);
      expect(res.body.error_code, nonce).toBe(1104);
    }
    for (const nonce of ['n'.repeat(15) + crypto.randomUUID().slice(0, 1), crypto.randomUUID()]) {
      expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(account, { nonce }) })).status, nonce).toBe(200);
    }
  });

  it('accepts a nonce once (401/1106 on replay) and purges expired nonces', async () => {
    const headers = await signedHeaders(account, { nonce: 'replayed-nonce-0123456789' });
    expect((await call('/get_image_sets/_0000014', { headers })).status).toBe(200);
    const replay = await callJson('/get_image_sets/_0000014', { headers });
    expect(replay.status).toBe(401);
    expect(replay.body.error_code).toBe(1106);

    await env.DB.prepare('INSERT INTO signature_nonces (key_id, nonce, expires_at) VALUES (?, ?, ?)').bind(account.keyId, 'stale-nonce-0123456789', 1).run();
    const before = await countNonces(database(env.DB));
    expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(account) })).status).toBe(200);
    const stale = await env.DB.prepare('SELECT count(*) AS n FROM signature_nonces WHERE nonce = ?').bind('stale-nonce-0123456789').first<{ n: number }>();
    expect(stale?.n).toBe(0);
    expect(await countNonces(database(env.DB))).toBe(before); // one stale row out, one new nonce in
  });
});
