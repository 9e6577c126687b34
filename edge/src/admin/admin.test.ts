import { afterEach, describe, expect, it, vi } from 'vitest';
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { QUOTA_FIELDS } from '@iris/shared';
import { adminFailures } from '../auth/failure-limiter.js';
import { ADMIN_TOKEN, admin, call, callJson, keyHeaders, newAccount, type BackendEcho } from '../../test/helpers.js';

afterEach(() => adminFailures.clear());

describe('admin API guard', () => {
  it('is 404 when ADMIN_TOKEN is unset and 401 with a wrong token, in the resource shape', async () => {
    const disabled = await callJson('/admin/health', { headers: { authorization: 'Bearer x' }, env: { ADMIN_TOKEN: '' } });
    expect(disabled.status).toBe(404);
    expect(disabled.body).toMatchObject({ error_code: 1108 });
    const wrong = await admin('GET', '/health', undefined, 'wrong-token');
    expect(wrong.status).toBe(401);
    expect(typeof wrong.body.request_id).toBe('string');
  });

  it('refuses every call with the generic 500 while ADMIN_TOKEN is shorter than 32 characters, naming the reason in the log', async () => {
    const short = 'short-but-guessable-token';
    const logged = vi.spyOn(console, 'error');
    try {
      const res = await callJson('/admin/accounts', { headers: { authorization: `Bearer ${short}` }, env: { ADMIN_TOKEN: short } });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error_code: 9001, message: 'internal error' });
      expect(logged.mock.calls.flat().join(' ')).toMatch(/ADMIN_TOKEN must be at least 32 characters/);
    } finally {
      logged.mockRestore();
    }
  });

  it('answers 429 with Retry-After to an address after its failed attempts, before comparing its token; others go on', async () => {
    const limits = { EDGE_ADMIN_FAILURES_PER_ADDRESS: '4' };
    const from = (address: string, token: string) =>
      callJson('/admin/accounts', { headers: { authorization: `Bearer ${token}`, 'cf-connecting-ip': address }, env: limits });
    for (let i = 0; i < 4; i++) expect((await from('198.51.100.20', `guess-${i}`)).status).toBe(401);
    const blocked = await from('198.51.100.20', ADMIN_TOKEN);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ error_code: 1112 });
    expect(blocked.res.headers.get('retry-after')).toBe('60');
    expect((await from('198.51.100.21', ADMIN_TOKEN)).status).toBe(200);
  });

  it('property: no wrong token of any length or content is accepted, and each counts as a failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }).filter((t) => t.trim() !== ADMIN_TOKEN && /^[\x21-\x7e]+$/.test(t)), async (token) => {
        adminFailures.clear();
        const res = await callJson('/admin/accounts', { headers: { authorization: `Bearer ${token}`, 'cf-connecting-ip': '198.51.100.30' }, env: { EDGE_ADMIN_FAILURES_PER_ADDRESS: '1' } });
        expect(res.status).toBe(401);
        const next = await callJson('/admin/accounts', { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'cf-connecting-ip': '198.51.100.30' }, env: { EDGE_ADMIN_FAILURES_PER_ADDRESS: '1' } });
        expect(next.status).toBe(429);
      }),
      { numRuns: 30 },
    );
  });

  it('reports health with D1 and backend configuration', async () => {
    const { status, body } = await admin('GET', '/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', d1: 'ok', regions: { 'cn-east': { backend_configured: true, reachable: true, ready: true, status: 200 } } });
    expect(body).toMatchObject({ regions: { 'ap-southeast': { ready: true, checks: { database: { ok: true } } } } });
  });

  it('probes each region: an unreachable backend makes the platform degraded', async () => {
    const res = await callJson<{ status: string; regions: Record<string, { reachable: boolean; ready: boolean; error?: string }> }>('/admin/health', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      env: { BACKEND_URL_CN_EAST: env.CLOSED_BACKEND_URL },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.regions['cn-east']).toMatchObject({ reachable: false, ready: false });
    expect(res.body.regions['ap-southeast']).toMatchObject({ reachable: true, ready: true });
  });

  it('never forwards an unknown admin path', async () => {
    const res = await admin('GET', '/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe(1108);
    expect(res.body.backend).toBeUndefined();
  });
});

describe('accounts and keys', () => {
  it('creates, lists, disables and enables accounts', async () => {
    const created = await admin<{ id: number; name: string; disabled: boolean; created_at: string }>('POST', '/accounts', { name: 'acme' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'acme', disabled: false });
    expect(created.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const list = await admin<{ results: { id: number }[] }>('GET', '/accounts');
    expect(list.body.results.map((a) => a.id)).toContain(created.body.id);
    const disabled = await admin('POST', `/accounts/${created.body.id}/disable`);
    expect(disabled.body.disabled).toBe(true);
    // Every configured region backend was told to stop the account's queued work.
    expect(disabled.res.headers.get('x-iris-revocation')).toMatch(/cn-east=done/);
    const enabled = await admin('POST', `/accounts/${created.body.id}/enable`);
    expect(enabled.body.disabled).toBe(false);
    expect(enabled.res.headers.get('x-iris-revocation')).toBeNull();
    const revoked = await admin('DELETE', `/accounts/${created.body.id}/grants/_0000024`);
    expect(revoked.res.headers.get('x-iris-revocation')).toMatch(/cn-east=done/);
    expect((await admin('POST', '/accounts', { name: '' })).status).toBe(400);
    expect((await admin('GET', '/accounts/999999')).status).toBe(404);
  });

  it('creates keys with given ids once; posting a known id again is 409 and never shows its secret', async () => {
    const account = await admin<{ id: number }>('POST', '/accounts', { name: 'dev' });
    const first = await admin('POST', `/accounts/${account.body.id}/keys`, { key_id: 'irisdev0001', secret: 'dev-secret-123' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ key_id: 'irisdev0001', secret: 'dev-secret-123', enabled: true, signature_required: false });
    for (const again of [{ key_id: 'irisdev0001' }, { key_id: 'irisdev0001', secret: 'dev-secret-123' }, { key_id: 'irisdev0001', secret: 'another-secret' }]) {
      const res = await admin('POST', `/accounts/${account.body.id}/keys`, again);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error_code: 1111 });
      expect(JSON.stringify(res.body)).not.toContain('dev-secret-123');
    }
    const other = await admin<{ id: number }>('POST', '/accounts', { name: 'other' });
    const stolen = await admin('POST', `/accounts/${other.body.id}/keys`, { key_id: 'irisdev0001' });
    expect(stolen.status).toBe(409);
    expect(JSON.stringify(stolen.body)).not.toContain('dev-secret-123');

    const generated = await admin<{ key_id: string; secret: string }>('POST', `/accounts/${account.body.id}/keys`, {});
    expect(generated.body.key_id).toMatch(/^ak[a-z0-9]{22}$/);
    expect(generated.body.secret.length).toBeGreaterThanOrEqual(40);
    const keys = await admin<{ results: Record<string, unknown>[] }>('GET', `/accounts/${account.body.id}/keys`);
    expect(keys.body.results).toHaveLength(2);
    expect(keys.body.results.every((k) => !('secret' in k))).toBe(true);
  });

  it('disables a key and sets its signature requirement', async () => {
    const account = await newAccount();
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(account) })).status).toBe(200);
    expect((await admin('PATCH', `/keys/${account.keyId}`, { signature_required: true })).body.signature_required).toBe(true);
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account) })).body.error_code).toBe(1104);
    await admin('PATCH', `/keys/${account.keyId}`, { signature_required: false });
    await admin('POST', `/keys/${account.keyId}/disable`);
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account) })).body.error_code).toBe(1103);
    await admin('POST', `/keys/${account.keyId}/enable`);
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(account) })).status).toBe(200);
    expect((await admin('POST', '/keys/nosuchkey/disable')).status).toBe(404);
  });
});

describe('quotas and grants', () => {
  it('sets quotas, keeps the others at their defaults, and restores a default with null', async () => {
    const account = await newAccount();
    expect((await admin('GET', `/accounts/${account.accountId}/quotas`)).body).toEqual(Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, f.default])));
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { image_sets: 5 })).body).toMatchObject({ image_sets: 5, training_sets: 50 });
    expect((await admin('PATCH', `/accounts/${account.accountId}/quotas`, { training_sets: 7 })).body).toMatchObject({ image_sets: 5, training_sets: 7 });
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { image_sets: null })).body).toMatchObject({ image_sets: 100, training_sets: 7 });
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { image_sets: -1 })).status).toBe(400);
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { bogus: 1 })).status).toBe(400);
  });

  it('lists grants with their source and refuses services outside the catalogue', async () => {
    const account = await newAccount();
    await admin('DELETE', `/accounts/${account.accountId}/grants/_0000024`);
    const grants = await admin<{ default: string; results: { service_id: string; granted: boolean; explicit: boolean; regions: string[] }[] }>('GET', `/accounts/${account.accountId}/grants`);
    expect(grants.body.default).toBe('all');
    expect(grants.body.results.find((g) => g.service_id === '_0000024')).toMatchObject({ granted: false, explicit: true });
    expect(grants.body.results.find((g) => g.service_id === '_0000049')).toMatchObject({ granted: true, explicit: false });
    expect(grants.body.results.find((g) => g.service_id === '_0000143')?.regions).toEqual(['cn-east']);
    expect((await admin('PUT', `/accounts/${account.accountId}/grants/_0009999`)).status).toBe(404);
  });
});

describe('operator forwarding', () => {
  it('forwards /admin/regions/{region}/... to that backend as /admin/... with account 0', async () => {
    const res = await admin<BackendEcho>('POST', '/regions/ap-southeast/logos?x=1', { name: 'acme' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ backend: 'ap-southeast', verified: true, account: 0, url: '/admin/logos?x=1', method: 'POST' });
    expect(res.body.headers.authorization).toBeUndefined();
    expect((await admin('GET', '/regions/mars/logos')).status).toBe(404);
  });

  it('does not let an API key reach /admin', async () => {
    const account = await newAccount();
    const res = await callJson('/admin/regions/cn-east/logos', { headers: keyHeaders(account) });
    expect(res.status).toBe(401);
    expect(res.body.backend).toBeUndefined();
  });
});
