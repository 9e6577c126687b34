import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInternal } from '@iris/shared';
import { multipart, startTestBackend, type TestBackend } from './support/test-app.js';

describe('backend core', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startTestBackend();
  });
  afterAll(() => backend?.close());

  it('refuses requests without a valid edge signature, in the path family shape', async () => {
    const plain = await backend.app.inject({ method: 'POST', url: '/bad_cases/_0000204', payload: 'service_id=x&request_id=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(plain.statusCode).toBe(401);
    expect(plain.json()).toMatchObject({ error_code: 9004 });

    const forged = await signInternal('not-the-secret-at-all-xx', { method: 'POST', pathWithQuery: '/detect/_0000049', accountId: 1, context: { requestId: 'r', lang: 'en' } });
    const analysis = await backend.app.inject({ method: 'POST', url: '/detect/_0000049', headers: forged });
    expect(analysis.statusCode).toBe(401);
    expect(analysis.json()).toMatchObject({ data: { is_err: 1, error_code: 9004 }, status: 401 });
  });

  it('refuses a replayed signature and a body other than the signed one (length and SHA-256)', async () => {
    const payload = 'service_id=_0000049&request_id=replay';
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const context = { requestId: 'r1', lang: 'en' as const };
    const signed = await signInternal(backend.config.internalSecret, { method: 'POST', pathWithQuery: '/bad_cases/_0000204', accountId: 1, context, body: payload });
    const first = await backend.app.inject({ method: 'POST', url: '/bad_cases/_0000204', payload, headers: { ...headers, ...signed } });
    expect(first.statusCode).toBe(200);
    const replay = await backend.app.inject({ method: 'POST', url: '/bad_cases/_0000204', payload, headers: { ...headers, ...signed } });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ error_code: 9004 });

    const sameLength = 'service_id=_0000049&request_id=REPLAY';
    const swapped = await signInternal(backend.config.internalSecret, { method: 'POST', pathWithQuery: '/bad_cases/_0000204', accountId: 1, context, body: payload });
    const other = await backend.app.inject({ method: 'POST', url: '/bad_cases/_0000204', payload: sameLength, headers: { ...headers, ...swapped } });
    expect(other.statusCode).toBe(401);
    const longer = await signInternal(backend.config.internalSecret, { method: 'POST', pathWithQuery: '/bad_cases/_0000204', accountId: 1, context, body: payload });
    expect((await backend.app.inject({ method: 'POST', url: '/bad_cases/_0000204', payload: `${payload}&x=1`, headers: { ...headers, ...longer } })).statusCode).toBe(401);
    // No body bound: any body is refused (GET bodies included).
    const none = await signInternal(backend.config.internalSecret, { method: 'GET', pathWithQuery: '/batch/_1000001/tasks', accountId: 1, context });
    expect((await backend.app.inject({ method: 'GET', url: '/batch/_1000001/tasks', payload: 'start=1', headers: { ...headers, ...none } })).statusCode).toBe(401);
  });

  it('refuses a ready-made analysis service the signed grants do not list (403/2005), or the region does not offer (404/1001)', async () => {
    const notGranted = await backend.call({ method: 'POST', url: '/detect/_0000049', services: ['_0000024'], payload: { url: 'http://127.0.0.1:1/a.jpg' } });
    expect(notGranted.statusCode).toBe(403);
    expect(notGranted.json()).toMatchObject({ data: { is_err: 1, error_code: 2005 } });
  });

  it('parses form, JSON (string values) and multipart bodies alike', async () => {
    const form = await backend.call({ method: 'POST', url: '/bad_cases/_0000204', payload: 'service_id=_0000049&request_id=abc&description=wrong%20box', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.statusCode).toBe(200);
    expect(form.json()).toMatchObject({ service_id: '_0000049', reported_request_id: 'abc', description: 'wrong box', status: 'open' });
    expect(form.json().created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const json = await backend.call({ method: 'POST', url: '/bad_cases/_0000204', payload: { service_id: '_0000024', request_id: 'def' } });
    expect(json.json()).toMatchObject({ service_id: '_0000024', reported_request_id: 'def' });

    const mp = multipart({ service_id: '_0000072', request_id: 'ghi', details: 'x' });
    const multi = await backend.call({ method: 'POST', url: '/bad_cases/_0000204', payload: mp.payload, headers: mp.headers });
    expect(multi.json()).toMatchObject({ service_id: '_0000072', details: 'x' });
  });

  it('answers missing parameters and unknown paths in the right shape, with the request id', async () => {
    const missing = await backend.call({ method: 'POST', url: '/bad_cases/_0000204', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error_code: 5001 });
    expect(typeof missing.json().request_id).toBe('string');

    const unknown = await backend.call({ method: 'GET', url: '/batch/_1000001/nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ is_error: 1, data: { error_code: 1108 } });

    const malformed = await backend.call({ method: 'POST', url: '/bad_cases/_0000204', payload: '{"service_id":', headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
  });
});
