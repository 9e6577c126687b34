import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyInternal } from '@iris/shared';
import { forwardToBackend } from './forward.service.js';
import { call, callJson, echoBody, keyHeaders, newAccount, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const unreachable = () => ({ BACKEND_URL_CN_EAST: env.CLOSED_BACKEND_URL });

describe('forwarding', () => {
  it('routes by host to the region backend, with a valid internal signature', async () => {
    const hosts: [string, string][] = [
      ['localhost', 'cn-east'],
      ['127.0.0.1:8787', 'cn-east'],
      ['cn-east.localhost:8787', 'cn-east'],
      ['unknown.example.com', 'cn-east'],
      ['ap-southeast.localhost:8787', 'ap-southeast'],
    ];
    for (const [host, region] of hosts) {
      const res = await callJson<BackendEcho>('/get_image_sets/_0000014?x=1', { headers: keyHeaders(account), host });
      expect(res.body.backend).toBe(region);
      expect(res.body.verified).toBe(true);
      expect(res.body.url).toBe('/get_image_sets/_0000014?x=1');
      expect(res.body.request_id).toBe(res.res.headers.get('x-request-id'));
      // The backend's stages, then the edge's own total.
      expect(res.res.headers.get('server-timing')).toMatch(/^backend;dur=1\.0, edge;dur=\d+$/);
    }
    const configured = await callJson<BackendEcho>('/get_image_sets/_0000014', {
      headers: keyHeaders(account),
      host: 'hk.iris.example.com',
      env: { REGION_HOSTS: '{"ap-southeast": ["hk.iris.example.com"]}' },
    });
    expect(configured.body.backend).toBe('ap-southeast');
  });

  it('forwards raw bytes and content type unchanged, strips client x-iris headers, asks for no compression', async () => {
    const bytes = new Uint8Array([0, 255, 1, 254, 13, 10]);
    const res = await callJson<BackendEcho>('/bad_cases/_0000204', {
      method: 'POST',
      headers: { ...keyHeaders(account), 'content-type': 'application/octet-stream', 'x-iris-account': '999', 'accept-encoding': 'gzip, deflate' },
      body: bytes,
    });
    expect(res.body.verified).toBe(true);
    expect(res.body.account).toBe(account.accountId);
    expect(Array.from(Uint8Array.from(atob(res.body.body_base64), (c) => c.charCodeAt(0)))).toEqual(Array.from(bytes));
    expect(res.body.headers['content-type']).toBe('application/octet-stream');
    expect(res.body.headers['accept-encoding']).toBe('identity');
    expect(res.res.headers.get('content-encoding')).toBe('identity');
  });

  it('treats a trailing slash as the same path and forwards the normalised path', async () => {
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014/?count=2', { headers: keyHeaders(account) });
    expect(res.body.url).toBe('/get_image_sets/_0000014?count=2');
  });

  it('forwards a DELETE with a JSON body', async () => {
    const body = '{"ids": ["p1", "p2"]}';
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', { method: 'DELETE', headers: { ...keyHeaders(account), 'content-type': 'application/json' }, body });
    expect(res.body.method).toBe('DELETE');
    expect(echoBody(res.body)).toBe(body);
  });

  it('sends a GET with a body over its own HTTP/1.1 connection (fetch cannot), chunked answers included', async () => {
    for (const mode of ['', 'chunked']) {
      const answer = await forwardToBackend({
        region: 'cn-east',
        backend: { url: env.BACKEND_URL_CN_EAST, secret: env.INTERNAL_SECRET_CN_EAST },
        timeoutMs: 5000,
        method: 'GET',
        pathWithQuery: '/product_sets/_0000178/abc/products?ids=a',
        headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded', 'x-test-backend': mode }),
        body: new TextEncoder().encode('service_id=_0000049&名=値'),
        accountId: 42,
        context: { requestId: 'r1', lang: 'en' },
      });
      const echo = (await answer.response.json()) as BackendEcho;
      expect(echo.method).toBe('GET');
      expect(echo.verified).toBe(true);
      expect(echo.account).toBe(42);
      expect(echoBody(echo)).toBe('service_id=_0000049&名=値');
    }
  });

  it('signs exactly what the backend receives', async () => {
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014?q=%E5%90%8D&a=b%20c', { headers: keyHeaders(account) });
    const verified = await verifyInternal(env.INTERNAL_SECRET_CN_EAST!, {
      method: res.body.method,
      pathWithQuery: res.body.url,
      header: (name) => res.body.headers[name],
    });
    expect(verified.ok).toBe(true);
  });

  it('answers 502 in each family shape when the backend is unreachable', async () => {
    const resource = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), env: unreachable() });
    expect(resource.status).toBe(502);
    expect(resource.body).toMatchObject({ error_code: 9002 });
    const analysis = await callJson('/detect/_0000049', { method: 'POST', headers: keyHeaders(account), env: unreachable() });
    expect(analysis.body).toMatchObject({ status: 502, data: { is_err: 1, error_code: 9002 } });
    const batch = await callJson('/batch/_1000001/tasks', { headers: keyHeaders(account), env: unreachable() });
    expect(batch.body).toMatchObject({ is_error: 1, data: { error_code: 9002 } });
  });

  it('answers 502 when the region has no backend configured', async () => {
    const res = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), env: { BACKEND_URL_CN_EAST: '' } });
    expect([res.status, res.body.error_code]).toEqual([502, 9002]);
  });

  it('answers 504 when the backend is too slow', async () => {
    const res = await callJson('/get_image_sets/_0000014', {
      headers: { ...keyHeaders(account), 'x-test-backend': 'slow:1500' },
      env: { BACKEND_TIMEOUT_MS: '200' },
    });
    expect(res.status).toBe(504);
    expect(res.body.error_code).toBe(9003);
  });

  it('re-wraps an HTML error page in the family shape', async () => {
    const res = await call('/search/abcdefgh', { method: 'POST', headers: { ...keyHeaders(account), 'x-test-backend': 'html:502' } });
    expect(res.headers.get('content-type')).toContain('application/json');
    expect((await res.text()).includes('<html')).toBe(false);
    const detect = await callJson<{ data: { error_code: number; message: string } }>('/detect/_0000049', {
      method: 'POST',
      headers: { ...keyHeaders(account), 'x-test-backend': 'html:500' },
    });
    expect(detect.status).toBe(502);
    expect(detect.body.data.error_code).toBe(9002);
    // The page's text (it may name hosts or paths) stays in the log.
    expect(detect.body.data.message).toBe('region backend failed (HTTP 500)');
  });

  it('passes a backend JSON error and a 204 through unchanged', async () => {
    const err = await callJson('/get_image_sets/_0000014', { headers: { ...keyHeaders(account), 'x-test-backend': 'json-error:404' } });
    expect(err.status).toBe(404);
    expect(err.body).toMatchObject({ error_code: 5001, message: 'backend refused' });
    const none = await call('/get_image_sets/_0000014', { method: 'DELETE', headers: { ...keyHeaders(account), 'x-test-backend': 'no-content' } });
    expect(none.status).toBe(204);
    expect(await none.text()).toBe('');
  });

  it('refuses a body over the limit with 413 in the path shape', async () => {
    const res = await callJson('/batch/_1000001/task/prepare', {
      method: 'POST',
      headers: { ...keyHeaders(account), 'content-length': String(60 * 1024 * 1024), 'content-type': 'multipart/form-data; boundary=x' },
      body: 'small',
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ is_error: 1, data: { error_code: 1110 } });
  });

  it('never answers HTML or a stack trace for an internal failure', async () => {
    const res = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), env: { REGION_HOSTS: 'not json' } });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error_code: 9001, message: 'internal error' });
    expect(JSON.stringify(res.body)).not.toContain('    at ');
    expect(JSON.stringify(res.body)).not.toMatch(/REGION_HOSTS|configuration/);
  });
});
