import { env } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearHotPathCaches } from './hot-path.cache.js';
import { admin, call, callJson, keyHeaders, newAccount, seedResource, signedHeaders, sleep, type BackendEcho } from '../../test/helpers.js';

/**
 * Counted D1 round trips; a short TTL so that "another isolate changed it" can be waited out, long enough
 * that a loaded machine still makes the "served from the isolate" call inside it.
 */
const TTL_MS = 1500;
const counted = { EDGE_REPORT_D1_QUERIES: '1', EDGE_CACHE_TTL_MS: String(TTL_MS) };
const queries = (res: Response) => Number(res.headers.get('x-iris-d1-queries'));
/** A TTL no slow machine outlives between two calls. */
const warmEnv = { EDGE_REPORT_D1_QUERIES: '1', EDGE_CACHE_TTL_MS: '60000' };

beforeEach(() => clearHotPathCaches());

describe('hot path: no D1 round trip when warm', () => {
  it('a known key, a by-id check of a known resource and an analysis call make no D1 query once warm', async () => {
    const account = await newAccount();
    const setId = await seedResource('image_set', account.accountId);
    const cold = await call('/get_image_sets/_0000014', { headers: keyHeaders(account), env: warmEnv });
    expect(cold.status).toBe(200);
    expect(queries(cold)).toBe(1); // key + account + quotas in one query
    const warm = await call('/get_image_sets/_0000014', { headers: keyHeaders(account), env: warmEnv });
    expect(warm.status).toBe(200);
    expect(queries(warm)).toBe(0);

    expect(queries(await call(`/image_sets/_0000014/${setId}`, { headers: keyHeaders(account), env: warmEnv }))).toBe(1);
    const byId = await call(`/image_sets/_0000014/${setId}`, { headers: keyHeaders(account), env: warmEnv });
    expect(byId.status).toBe(200);
    expect(queries(byId)).toBe(0);

    expect(queries(await call('/detect/_0000049', { method: 'POST', headers: keyHeaders(account), env: warmEnv }))).toBe(1); // grants
    const analysis = await call('/detect/_0000049', { method: 'POST', headers: keyHeaders(account), env: warmEnv });
    expect(analysis.status).toBe(200);
    expect(queries(analysis)).toBe(0);
  });

  it('keeps nonce replay protection exact: a signed call makes its one nonce write every time', async () => {
    const account = await newAccount();
    await call('/get_image_sets/_0000014', { headers: keyHeaders(account), env: warmEnv });
    const headers = await signedHeaders(account, { params: [] });
    const first = await call('/get_image_sets/_0000014', { headers, env: warmEnv });
    expect(first.status).toBe(200);
    expect(queries(first)).toBe(1);
    const replay = await callJson('/get_image_sets/_0000014', { headers, env: warmEnv });
    expect(replay.body.error_code).toBe(1106);
  });
});

describe('hot path: changes take effect', () => {
  it('at once through this isolate: a disabled key, a disabled account, a revoked grant', async () => {
    const account = await newAccount();
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(account), env: counted })).status).toBe(200);
    await admin('POST', `/keys/${account.keyId}/disable`);
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), env: counted })).body.error_code).toBe(1103);
    await admin('POST', `/keys/${account.keyId}/enable`);
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(account), env: counted })).status).toBe(200);
    await admin('POST', `/accounts/${account.accountId}/disable`);
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), env: counted })).body.error_code).toBe(1103);
    await admin('POST', `/accounts/${account.accountId}/enable`);

    expect((await call('/detect/_0000049', { method: 'POST', headers: keyHeaders(account), env: counted })).status).toBe(200);
    await admin('DELETE', `/accounts/${account.accountId}/grants/_0000049`);
    const revoked = await callJson<{ data: { error_code: number } }>('/detect/_0000049', { method: 'POST', headers: keyHeaders(account), env: counted });
    expect(revoked.status).toBe(403);
    expect(revoked.body.data.error_code).toBe(2005);
  });

  it('within the TTL when made elsewhere (straight in D1, as another isolate would): key, grant, deleted resource', async () => {
    const account = await newAccount();
    const setId = await seedResource('image_set', account.accountId);
    const headers = keyHeaders(account);
    expect((await call(`/image_sets/_0000014/${setId}`, { headers, env: counted })).status).toBe(200);
    expect((await call('/detect/_0000049', { method: 'POST', headers, env: counted })).status).toBe(200);

    await env.DB.prepare('UPDATE access_keys SET enabled = 0 WHERE account_id = ?').bind(account.accountId).run();
    await env.DB.prepare("INSERT INTO service_grants (account_id, service_id, granted, updated_at) VALUES (?, '_0000049', 0, 0)").bind(account.accountId).run();
    await env.DB.prepare("UPDATE resources SET state = 'deleted' WHERE id = ?").bind(setId).run();
    // Still served from the isolate (bounded staleness)…
    expect((await call(`/image_sets/_0000014/${setId}`, { headers, env: counted })).status).toBe(200);
    await sleep(TTL_MS + 100);
    // …and refused once the TTL has passed.
    expect((await callJson('/get_image_sets/_0000014', { headers, env: counted })).body.error_code).toBe(1103);
    await env.DB.prepare('UPDATE access_keys SET enabled = 1 WHERE account_id = ?').bind(account.accountId).run();
    await sleep(TTL_MS + 100);
    const gone = await callJson(`/image_sets/_0000014/${setId}`, { headers, env: counted });
    expect(gone.status).toBe(404);
    const revoked = await callJson<{ data: { error_code: number } }>('/detect/_0000049', { method: 'POST', headers, env: counted });
    expect(revoked.body.data.error_code).toBe(2005);
  });

  it('a resource deleted through this isolate (backend registry report) is refused at once', async () => {
    const account = await newAccount();
    const setId = await seedResource('image_set', account.accountId);
    const headers = keyHeaders(account);
    expect((await call(`/image_sets/_0000014/${setId}`, { headers, env: counted })).status).toBe(200);
    expect((await call(`/image_sets/_0000014/${setId}`, { method: 'DELETE', headers: { ...headers, 'x-test-backend': `no-content:${setId}` }, env: counted })).status).toBe(204);
    expect((await callJson(`/image_sets/_0000014/${setId}`, { headers, env: counted })).status).toBe(404);
  });

  it('an unknown key is remembered for EDGE_UNKNOWN_KEY_TTL_MS only: a key stored elsewhere (here: before migration 0002) works after it', async () => {
    const account = await newAccount();
    const keyId = `akunknown${Date.now()}`;
    const remembered = { ...counted, EDGE_UNKNOWN_KEY_TTL_MS: '300' };
    expect((await callJson('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId }, env: remembered })).body.error_code).toBe(1102);
    await env.DB.prepare('INSERT INTO legacy_access_keys (key_id, secret, account_id, enabled, signature_required, created_at) VALUES (?, ?, ?, 1, 0, 0)')
      .bind(keyId, 'plain-secret-value', account.accountId)
      .run();
    const again = await callJson('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId }, env: remembered });
    expect(again.body.error_code).toBe(1102);
    expect(again.res.headers.get('x-iris-d1-queries')).toBe('0');
    // Polled: the entry expires after 300 ms, the deadline is generous.
    const deadline = Date.now() + 20_000;
    let res = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId }, env: remembered });
    while (res.status !== 200 && Date.now() < deadline) {
      await sleep(50);
      res = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId }, env: remembered });
    }
    expect(res.status).toBe(200);
    expect(res.body.account).toBe(account.accountId);
  });
});
