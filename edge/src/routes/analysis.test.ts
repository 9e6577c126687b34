import { beforeAll, describe, expect, it } from 'vitest';
import { admin, callJson, keyHeaders, newAccount, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

type AnalysisError = { data: { is_err: number; error_code: number; request_id: string; message: string }; status: number };
const post = (extra: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { ...keyHeaders(account), 'content-type': 'application/x-www-form-urlencoded', ...extra },
  body: 'url=https://example.com/a.jpg',
});

describe('ready-made analysis services', () => {
  it('forwards a granted service offered in the region, whatever the type word', async () => {
    for (const path of ['/detect/_0000049', '/classify_porn/_0000024', '/image_analysis_everything/_0000072', '/dressing/_0000111/']) {
      const res = await callJson<BackendEcho>(path, post());
      expect(res.status).toBe(200);
      expect(res.body.url).toBe(path.replace(/\/$/, ''));
    }
  });

  it('answers 404/1001 for a service the region does not offer (catalogue and REGION_SERVICES)', async () => {
    // _0000143 (receipt text recognition) is offered in cn-east only.
    expect((await callJson('/detect/_0000143', post())).status).toBe(200);
    const ap = await callJson<AnalysisError>('/detect/_0000143', { ...post(), host: 'ap-southeast.localhost:8787' });
    expect(ap.status).toBe(404);
    expect(ap.body).toMatchObject({ status: 404, data: { is_err: 1, error_code: 1001 } });

    const narrowed = await callJson<AnalysisError>('/detect/_0000049', { ...post(), env: { REGION_SERVICES: '{"cn-east": ["_0000024"]}' } });
    expect([narrowed.status, narrowed.body.data.error_code]).toEqual([404, 1001]);
    const widened = await callJson('/detect/_0000143', { ...post(), host: 'ap-southeast.localhost', env: { REGION_SERVICES: '{"ap-southeast": ["_0000143"]}' } });
    expect(widened.status).toBe(200);
  });

  it('answers 404/1001 for an id that is not in the catalogue under an analysis word', async () => {
    const res = await callJson<AnalysisError>('/classify/_0000999', post());
    expect([res.status, res.body.data.error_code]).toEqual([404, 1001]);
  });

  it('answers 403/2005 when the account is not granted the service; grants can be given back', async () => {
    const other = await newAccount();
    const headers = { ...keyHeaders(other), 'content-type': 'application/x-www-form-urlencoded' };
    await admin('DELETE', `/accounts/${other.accountId}/grants/_0000024`);
    const refused = await callJson<AnalysisError>('/classify/_0000024', { method: 'POST', headers, body: 'url=x' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, data: { is_err: 1, error_code: 2005 } });
    expect((await callJson('/classify/_0000039', { method: 'POST', headers, body: 'url=x' })).status).toBe(200);
    // Colour and fashion errors carry no error_code, whatever the status.
    for (const id of ['_0000072', '_0000111']) {
      await admin('DELETE', `/accounts/${other.accountId}/grants/${id}`);
      const status = await callJson<AnalysisError>(`/color/${id}`, { method: 'POST', headers, body: 'url=x' });
      expect(status.status, id).toBe(403);
      expect(status.body, id).toMatchObject({ status: 403, data: { is_err: 1 } });
      expect(status.body.data, id).not.toHaveProperty('error_code');
    }
    await admin('PUT', `/accounts/${other.accountId}/grants/_0000024`);
    expect((await callJson('/classify/_0000024', { method: 'POST', headers, body: 'url=x' })).status).toBe(200);
  });

  it('refuses a batch task for a ready-made service the account is not granted (400/400008, a batch code)', async () => {
    const other = await newAccount();
    const prepare = (serviceId: string) => {
      const form = new FormData();
      form.append('service_id', serviceId);
      form.append('urls', new Blob(['https://example.com/a.jpg\nhttps://example.com/b.jpg\n']), 'urls.txt');
      return callJson<BackendEcho & { is_error?: number; data?: { error_code: number } }>('/batch/_1000001/task/prepare', { method: 'POST', headers: keyHeaders(other), body: form });
    };
    expect((await prepare('_0000024')).status).toBe(200);
    await admin('DELETE', `/accounts/${other.accountId}/grants/_0000024`);
    const refused = await prepare('_0000024');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ is_error: 1, data: { error_code: 400008 } });
    expect(refused.body.url).toBeUndefined();
    // Still granted, unknown and custom ids go on to the backend, which judges them (400007 / 400008).
    for (const id of ['_0000039', '_0000999', 'cls_2f1c']) expect((await prepare(id)).status, id).toBe(200);
  });

  it('refuses a batch task for a ready-made service the region does not offer (400/400007)', async () => {
    const other = await newAccount();
    const form = new FormData();
    form.append('service_id', '_0000049');
    form.append('urls', new Blob(['https://example.com/a.jpg\nhttps://example.com/b.jpg\n']), 'urls.txt');
    const env = { REGION_SERVICES: '{"cn-east": ["_0000024"]}' };
    const refused = await callJson<BackendEcho & { is_error?: number; data?: { error_code: number } }>('/batch/_1000001/task/prepare', { method: 'POST', headers: keyHeaders(other), body: form, env });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ is_error: 1, data: { error_code: 400007 } });
    expect(refused.body.url).toBeUndefined();
  });

  it('with DEFAULT_GRANTS=none only explicit grants pass', async () => {
    const other = await newAccount();
    const headers = { ...keyHeaders(other), 'content-type': 'application/x-www-form-urlencoded' };
    const env = { DEFAULT_GRANTS: 'none' };
    expect((await callJson('/classify/_0000039', { method: 'POST', headers, body: 'url=x', env })).status).toBe(403);
    await admin('POST', `/accounts/${other.accountId}/grants/_0000039`);
    expect((await callJson('/classify/_0000039', { method: 'POST', headers, body: 'url=x', env })).status).toBe(200);
  });
});
