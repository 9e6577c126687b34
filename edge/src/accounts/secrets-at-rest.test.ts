import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '@iris/shared';
import { admin, call, callJson, newAccount, signedHeaders } from '../../test/helpers.js';

async function dump(): Promise<string> {
  const { results } = await env.DB.prepare('SELECT * FROM access_keys').all();
  return JSON.stringify(results);
}

describe('secrets at rest', () => {
  it('stores neither the key id nor the secret in plain text; the key is found by the hash of its id', async () => {
    const account = await admin<{ id: number }>('POST', '/accounts', { name: 'at-rest' });
    const key = await admin<{ key_id: string; secret: string }>('POST', `/accounts/${account.body.id}/keys`, { key_id: 'atrestkey0001', secret: 'at-rest-secret-value' });
    expect(key.status).toBe(201);
    const stored = await dump();
    expect(stored).not.toContain('atrestkey0001');
    expect(stored).not.toContain('at-rest-secret-value');
    const row = await env.DB.prepare('SELECT key_hash, key_hint, secret_enc FROM access_keys WHERE key_hash = ?').bind(await sha256Hex('atrestkey0001')).first<{ key_hint: string; secret_enc: string }>();
    expect(row?.key_hint).toBe('atrest…');
    expect(row?.secret_enc).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    // The secret still signs: a signed call verifies against the decrypted secret.
    const signed = await signedHeaders({ accountId: account.body.id, keyId: 'atrestkey0001', secret: 'at-rest-secret-value' });
    expect((await call('/get_image_sets/_0000014', { headers: signed })).status).toBe(200);
    // Ensure semantics compare with the decrypted secret; listings show only the hint.
    expect((await admin('POST', `/accounts/${account.body.id}/keys`, { key_id: 'atrestkey0001', secret: 'at-rest-secret-value' })).status).toBe(409);
    expect((await admin('POST', `/accounts/${account.body.id}/keys`, { key_id: 'atrestkey0001', secret: 'other-secret-value' })).status).toBe(409);
    const listed = await admin<{ results: Record<string, unknown>[] }>('GET', `/accounts/${account.body.id}/keys`);
    expect(listed.body.results).toEqual([expect.objectContaining({ key_id_hint: 'atrest…', enabled: true })]);
    expect(JSON.stringify(listed.body)).not.toContain('atrestkey0001');
  });

  it('converts keys stored before migration 0002 on first use and on listing, dropping the plain rows', async () => {
    const { accountId } = await newAccount();
    const insert = env.DB.prepare('INSERT INTO legacy_access_keys (key_id, secret, account_id, enabled, signature_required, created_at) VALUES (?, ?, ?, 1, 0, 0)');
    await insert.bind('legacykey0001', 'legacy-secret-0001', accountId).run();
    await insert.bind('legacykey0002', 'legacy-secret-0002', accountId).run();
    const signed = await signedHeaders({ accountId, keyId: 'legacykey0001', secret: 'legacy-secret-0001' });
    expect((await call('/get_image_sets/_0000014', { headers: signed })).status).toBe(200);
    const left = await env.DB.prepare('SELECT key_id FROM legacy_access_keys WHERE account_id = ?').bind(accountId).all<{ key_id: string }>();
    expect(left.results.map((r) => r.key_id)).toEqual(['legacykey0002']);
    const listed = await admin<{ results: unknown[] }>('GET', `/accounts/${accountId}/keys`);
    expect(listed.body.results).toHaveLength(3);
    expect((await env.DB.prepare('SELECT count(*) AS n FROM legacy_access_keys WHERE account_id = ?').bind(accountId).first<{ n: number }>())?.n).toBe(0);
    expect(await dump()).not.toContain('legacy-secret-000');
  });

  it('answers the generic 500/9001 when SECRETS_MASTER_KEY is missing, and names the variable in the log only', async () => {
    const { keyId } = await newAccount();
    const logged = vi.spyOn(console, 'error');
    try {
      const res = await callJson('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId }, env: { SECRETS_MASTER_KEY: undefined, EDGE_CACHE_TTL_MS: '0' } });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error_code: 9001, message: 'internal error' });
      expect(JSON.stringify(res.body)).not.toMatch(/SECRETS_MASTER_KEY|configuration/);
      expect(logged.mock.calls.flat().join(' ')).toContain('SECRETS_MASTER_KEY');
    } finally {
      logged.mockRestore();
    }
  });
});
