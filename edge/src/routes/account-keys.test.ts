import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTime } from '@iris/shared';
import { admin, call, callJson, keyHeaders, newAccount, seedResource, signedHeaders, type TestAccount } from '../../test/helpers.js';

interface KeyAnswer {
  key_ref: string;
  key_id?: string;
  secret?: string;
  scopes: string[] | null;
  enabled: boolean;
  expires_at: string | null;
  expired: boolean;
  current: boolean;
  rotated_from: string | null;
  error_code?: number;
}

const json = (account: TestAccount, method: string, body?: unknown, extra: Record<string, string> = {}) => ({
  method,
  headers: { ...keyHeaders(account), 'content-type': 'application/json', ...extra },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

async function createKey(owner: TestAccount, body: Record<string, unknown> = {}): Promise<TestAccount & { keyRef: string }> {
  const res = await callJson<KeyAnswer>('/iris/keys', json(owner, 'POST', body));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { accountId: owner.accountId, keyId: res.body.key_id!, secret: res.body.secret!, keyRef: res.body.key_ref };
}

/** Polls `probe` until it answers `done` (state, not time); fails after a deadline generous for a loaded machine. */
async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, deadlineMs = 30_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const list = (account: TestAccount, env?: Record<string, string>) => callJson('/get_image_sets/_0000014', { headers: keyHeaders(account), ...(env ? { env } : {}) });

describe('keys an account manages itself', () => {
  it('creates a key whose id and secret are shown once; listing and reading never show them; a known key id is 409', async () => {
    const owner = await newAccount();
    const created = await callJson<KeyAnswer>('/iris/keys', json(owner, 'POST', { name: 'ci', key_id: `ci-${crypto.randomUUID()}` }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scopes: null, enabled: true, expired: false, current: false });
    expect(created.body.secret!.length).toBeGreaterThan(20);
    const key = { accountId: owner.accountId, keyId: created.body.key_id!, secret: created.body.secret! };
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(key) })).status).toBe(200);

    const listed = await callJson<{ results: KeyAnswer[] }>('/iris/keys', json(owner, 'GET'));
    expect(listed.body.results.map((k) => k.key_ref)).toContain(created.body.key_ref);
    expect(listed.body.results.every((k) => k.secret === undefined && k.key_id === undefined)).toBe(true);
    expect(listed.body.results.filter((k) => k.current)).toHaveLength(1);
    const one = await callJson<KeyAnswer>(`/iris/keys/${created.body.key_ref}`, json(owner, 'GET'));
    expect(one.body.secret).toBeUndefined();

    const again = await callJson<KeyAnswer>('/iris/keys', json(owner, 'POST', { key_id: key.keyId }));
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).not.toContain(key.secret);
    // Another account's key is not there at all.
    const stranger = await newAccount();
    expect((await callJson(`/iris/keys/${created.body.key_ref}`, json(stranger, 'GET'))).body.error_code).toBe(1108);
  });

  it('refuses calls outside a key scopes with 403/1113 in each path family shape; key management needs admin-of-account', async () => {
    const owner = await newAccount();
    const searchOnly = await createKey(owner, { scopes: ['search'] });
    const resource = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(searchOnly) });
    expect(resource.status).toBe(403);
    expect(resource.body).toMatchObject({ error_code: 1113 });
    const analysis = await callJson<{ data: Record<string, unknown>; status: number }>('/detect/_0000049', { method: 'POST', headers: keyHeaders(searchOnly) });
    expect(analysis.status).toBe(403);
    expect(analysis.body).toMatchObject({ status: 403, data: { is_err: 1, error_code: 1113 } });
    const batch = await callJson('/batch/_1000001/tasks', { headers: keyHeaders(searchOnly) });
    expect(batch.body).toMatchObject({ is_error: 1, data: { error_code: 1113 } });
    expect((await callJson('/iris/keys', json(searchOnly, 'GET'))).body).toMatchObject({ error_code: 1113 });
    expect((await call('/search/anyservice', { method: 'POST', headers: keyHeaders(searchOnly) })).status).not.toBe(403);

    const readOnly = await createKey(owner, { scopes: ['read'] });
    expect((await list(readOnly)).status).toBe(200);
    const setId = await seedResource('image_set', owner.accountId);
    expect((await callJson(`/image_sets/_0000014/${setId}`, { method: 'DELETE', headers: keyHeaders(readOnly) })).body.error_code).toBe(1113);

    const keyAdmin = await createKey(owner, { scopes: ['admin-of-account'] });
    expect((await callJson('/iris/keys', json(keyAdmin, 'GET'))).status).toBe(200);
    expect((await list(keyAdmin)).body.error_code).toBe(1113);

    // A key made before scopes existed (no list) keeps full access.
    expect((await list(owner)).status).toBe(200);
    const changed = await callJson<KeyAnswer>(`/iris/keys/${readOnly.keyRef}`, json(owner, 'PATCH', { scopes: null }));
    expect(changed.body.scopes).toBeNull();
    expect((await call('/detect/_0000049', { method: 'POST', headers: keyHeaders(readOnly) })).status).toBe(200);
  });

  it('disables, enables and deletes a key: refused at once in this isolate', async () => {
    const owner = await newAccount();
    const key = await createKey(owner);
    expect((await list(key)).status).toBe(200);
    await callJson(`/iris/keys/${key.keyRef}/disable`, json(owner, 'POST'));
    expect((await list(key)).body.error_code).toBe(1103);
    await callJson(`/iris/keys/${key.keyRef}/enable`, json(owner, 'POST'));
    expect((await list(key)).status).toBe(200);
    expect((await call(`/iris/keys/${key.keyRef}`, json(owner, 'DELETE'))).status).toBe(204);
    expect((await list(key)).body.error_code).toBe(1102);
    expect((await callJson(`/iris/keys/${key.keyRef}`, json(owner, 'GET'))).status).toBe(404);
  });

  it('a change made elsewhere (another isolate, straight in D1) reaches this isolate within EDGE_CACHE_TTL_MS', async () => {
    const owner = await newAccount();
    const key = await createKey(owner);
    const ttl = { EDGE_CACHE_TTL_MS: '1000' };
    expect((await list(key, ttl)).status).toBe(200);
    await env.DB.prepare('DELETE FROM access_keys WHERE key_ref = ?').bind(key.keyRef).run();
    const refused = await waitFor(() => list(key, ttl), (r) => r.status !== 200);
    expect(refused.body.error_code).toBe(1102);
  });

  it('expires a key at its expiry, cached or not', async () => {
    const owner = await newAccount();
    const key = await createKey(owner, { expires_at: formatTime(Date.now() + 3_600_000) });
    const longTtl = { EDGE_CACHE_TTL_MS: '600000' };
    expect((await list(key, longTtl)).status).toBe(200);
    const soon = formatTime(Date.now() + 3000);
    const patched = await callJson<KeyAnswer>(`/iris/keys/${key.keyRef}`, json(owner, 'PATCH', { expires_at: soon }));
    expect(patched.body.expires_at).toBe(soon);
    const refused = await waitFor(() => list(key, longTtl), (r) => r.status !== 200);
    expect(refused.body).toMatchObject({ error_code: 1103, message: 'the access key has expired' });
    const shown = await callJson<KeyAnswer>(`/iris/keys/${key.keyRef}`, json(owner, 'GET'));
    expect(shown.body.expired).toBe(true);
    // An expiry in the past is refused.
    expect((await callJson('/iris/keys', json(owner, 'POST', { expires_at: '2000-01-01T00:00:00Z' }))).body.error_code).toBe(1111);
  });

  it('rotates: a new id and secret with the same scopes; the old key works (signed with its secret) until the overlap ends', async () => {
    const owner = await newAccount();
    const old = await createKey(owner, { scopes: ['read', 'search'], signature_required: true });
    const rotated = await callJson<{ key: KeyAnswer; previous: KeyAnswer }>(`/iris/keys/${old.keyRef}/rotate`, json(owner, 'POST', { old_key_valid_until: formatTime(Date.now() + 3_600_000) }));
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatchObject({ scopes: ['read', 'search'], rotated_from: old.keyRef });
    expect(rotated.body.key.key_id).not.toBe(old.keyId);
    const next = { accountId: owner.accountId, keyId: rotated.body.key.key_id!, secret: rotated.body.key.secret! };
    expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(next, { requestMethod: 'GET' }) })).status).toBe(200);
    expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(old, { requestMethod: 'GET' }) })).status).toBe(200);
    expect((await callJson('/get_image_sets/_0000014', { headers: await signedHeaders({ ...old, secret: next.secret }, { requestMethod: 'GET' }) })).body.error_code).toBe(1104);

    // A short overlap: the old key stops by itself, the new one goes on.
    const again = await callJson<{ key: KeyAnswer; previous: KeyAnswer }>(`/iris/keys/${rotated.body.key.key_ref}/rotate`, json(owner, 'POST', { old_key_valid_until: formatTime(Date.now() + 2000) }));
    const third = { accountId: owner.accountId, keyId: again.body.key.key_id!, secret: again.body.key.secret! };
    const ended = await waitFor(
      async () => callJson('/get_image_sets/_0000014', { headers: await signedHeaders(next, { requestMethod: 'GET' }), env: { EDGE_CACHE_TTL_MS: '600000' } }),
      (r) => r.status !== 200,
    );
    expect(ended.body.error_code).toBe(1103);
    expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(third, { requestMethod: 'GET' }) })).status).toBe(200);
  });

  it('requires signatures for every key of an account once the account says so (and the operator can say so)', async () => {
    const owner = await newAccount();
    const other = await createKey(owner);
    const bystander = await newAccount();
    const set = await callJson('/iris/account', json(owner, 'PUT', { signature_required: true }));
    expect(set.body).toMatchObject({ account_id: owner.accountId, signature_required: true });
    for (const key of [owner, other]) {
      expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(key) })).body.error_code).toBe(1104);
      expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(key, { requestMethod: 'GET' }) })).status).toBe(200);
    }
    expect((await list(bystander)).status).toBe(200);
    const cleared = await admin<{ signature_required: boolean }>('PATCH', `/accounts/${owner.accountId}`, { signature_required: false });
    expect(cleared.body.signature_required).toBe(false);
    expect((await list(other)).status).toBe(200);
  });
});

interface AuditPage {
  results: { id: string; key_ref: string | null; request_id: string; method: string; path: string; target_id: string | null; outcome: string; status: number; actor: string; account_id: number | null; detail: Record<string, unknown> | null }[];
  next_cursor: string | null;
}

describe('audit log', () => {
  it('records key changes and deletes with key, request id, target and outcome; each account reads only its own', async () => {
    const owner = await newAccount();
    // The operator made the account and its first key: those are the account's first entries.
    const before = await callJson<AuditPage>('/iris/audit', json(owner, 'GET'));
    expect(before.body.results).toMatchObject([
      { actor: 'operator', method: 'POST', path: `/admin/accounts/${owner.accountId}/keys`, key_ref: null },
      { actor: 'operator', method: 'POST', path: '/admin/accounts', detail: { created: true } },
    ]);
    const created = await callJson<KeyAnswer>('/iris/keys', json(owner, 'POST', { name: 'audited' }));
    const setId = await seedResource('image_set', owner.accountId);
    const counted = { EDGE_REPORT_D1_QUERIES: '1', EDGE_CACHE_TTL_MS: '600000' };
    const deleted = await call(`/image_sets/_0000014/${setId}`, { method: 'DELETE', headers: keyHeaders(owner), env: counted });
    expect(Number(deleted.headers.get('x-iris-d1-queries'))).toBeGreaterThanOrEqual(1);
    // An ordinary call leaves no entry and, warm, still makes no D1 round trip.
    await list(owner, counted);
    expect((await list(owner, counted)).res.headers.get('x-iris-d1-queries')).toBe('0');

    const page = await callJson<AuditPage>('/iris/audit', json(owner, 'GET'));
    expect(page.body.results).toHaveLength(4);
    const [del, create] = page.body.results;
    expect(del).toMatchObject({ method: 'DELETE', target_id: setId, request_id: deleted.headers.get('x-request-id'), outcome: 'ok', actor: 'key', account_id: owner.accountId });
    expect(create).toMatchObject({ method: 'POST', path: '/iris/keys', target_id: created.body.key_ref, request_id: created.res.headers.get('x-request-id'), status: 201 });
    expect(create!.detail).toMatchObject({ created: true, name: 'audited' });
    expect(del!.key_ref).toBe(create!.key_ref);
    expect(JSON.stringify(page.body)).not.toContain(created.body.secret!);
    expect(JSON.stringify(page.body)).not.toContain(created.body.key_id!);

    const stranger = await newAccount();
    const theirs = (await callJson<AuditPage>('/iris/audit', json(stranger, 'GET'))).body.results;
    expect(theirs.map((e) => e.account_id)).toEqual([stranger.accountId, stranger.accountId]);

    const operator = await admin<AuditPage>('GET', `/audit?account_id=${owner.accountId}`);
    expect(operator.body.results.map((e) => e.request_id)).toEqual(page.body.results.map((e) => e.request_id));
  });

  it('records operator actions without key ids, and pages with a cursor', async () => {
    const owner = await newAccount();
    await admin('POST', `/keys/${owner.keyId}/disable`);
    await admin('POST', `/keys/${owner.keyId}/enable`);
    await admin('PATCH', `/accounts/${owner.accountId}`, { signature_required: false });
    const all = await admin<AuditPage>('GET', `/audit?account_id=${owner.accountId}`);
    expect(all.body.results.map((e) => e.path)).toEqual([`/admin/accounts/${owner.accountId}`, '/admin/keys/{key_id}/enable', '/admin/keys/{key_id}/disable', `/admin/accounts/${owner.accountId}/keys`, '/admin/accounts']);
    expect(all.body.results.every((e) => e.actor === 'operator')).toBe(true);
    expect(JSON.stringify(all.body)).not.toContain(owner.keyId);

    // The operator deletes a key: gone, and in the log under its reference.
    const spare = await createKey(owner);
    expect((await call(`/admin/keys/${spare.keyId}`, { method: 'DELETE', headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' } })).status).toBe(204);
    expect((await list(spare)).body.error_code).toBe(1102);
    const latest = await admin<AuditPage>('GET', `/audit?account_id=${owner.accountId}&limit=1`);
    expect(latest.body.results[0]).toMatchObject({ method: 'DELETE', path: '/admin/keys/{key_id}', target_id: spare.keyRef, actor: 'operator' });

    const pages = await admin<AuditPage>('GET', `/audit?account_id=${owner.accountId}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: AuditPage } = await admin<AuditPage>('GET', `/audit?account_id=${owner.accountId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.body.results.length).toBeLessThanOrEqual(1);
      seen.push(...res.body.results.map((e) => e.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(pages.body.results.map((e) => e.id));
  });

  it('forgets entries older than AUDIT_RETENTION_DAYS: not shown, and pruned as new entries are written', async () => {
    const owner = await newAccount();
    const old = Date.now() - 3 * 86_400_000;
    await env.DB.prepare("INSERT INTO audit_log (at, account_id, actor, request_id, method, path, status, outcome) VALUES (?, ?, 'key', 'old', 'DELETE', '/x', 200, 'ok')").bind(old, owner.accountId).run();
    const retention = { AUDIT_RETENTION_DAYS: '2' };
    const shown = (await callJson<AuditPage>('/iris/audit', { headers: keyHeaders(owner), env: retention })).body.results;
    expect(shown.map((e) => e.request_id)).not.toContain('old');
    expect(shown).toHaveLength(2);
    await callJson('/iris/account', { ...json(owner, 'PUT', { signature_required: false }), env: retention });
    const left = await env.DB.prepare('SELECT count(*) AS n FROM audit_log WHERE at < ?').bind(Date.now() - 2 * 86_400_000).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

describe('hostile inputs', () => {
  const refusedOrDone = (status: number, body: Record<string, unknown>) => (status === 201 || status === 200 ? true : status === 400 && body.error_code === 1111);

  it('property: any key body (names, scope lists, expiry texts) is created as asked or refused 400/1111, never more', async () => {
    const owner = await newAccount();
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            name: fc.oneof(fc.string({ maxLength: 300 }), fc.constant('  ok  '), fc.integer()),
            scopes: fc.oneof(fc.array(fc.oneof(fc.constantFrom('read', 'data', 'search', 'analysis', 'batch', 'admin-of-account'), fc.string({ maxLength: 20 })), { maxLength: 8 }), fc.string()),
            expires_at: fc.oneof(fc.string({ maxLength: 50 }), fc.date({ noInvalidDate: true }).map((d) => formatTime(d)), fc.constant(formatTime(Date.now() + 86_400_000))),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await callJson<KeyAnswer & { name: string | null }>('/iris/keys', json(owner, 'POST', body));
          expect(refusedOrDone(res.status, res.body as never), JSON.stringify(res.body)).toBe(true);
          if (res.status === 201) {
            if (typeof body.name === 'string') expect(res.body.name).toBe(body.name.trim());
            expect(res.body.scopes === null ? undefined : [...res.body.scopes].sort()).toEqual(Array.isArray(body.scopes) ? [...body.scopes].sort() : undefined);
            await call(`/iris/keys/${res.body.key_ref}`, json(owner, 'DELETE'));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('property: any change or rotation body is applied or refused 400/1111, never more', async () => {
    const owner = await newAccount();
    const target = await createKey(owner);
    const time = fc.oneof(fc.string({ maxLength: 50 }), fc.constant(null), fc.integer().map((n) => formatTime(Date.now() + (n % 100_000) * 60_000)));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('PATCH', 'rotate'),
        fc.record(
          {
            name: fc.oneof(fc.string({ maxLength: 120 }), fc.constant(null)),
            scopes: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }), fc.constant(null), fc.constant(['batch'])),
            expires_at: time,
            old_key_valid_until: time,
            enabled: fc.oneof(fc.boolean(), fc.string({ maxLength: 5 })),
          },
          { requiredKeys: [] },
        ),
        async (kind, body) => {
          const path = kind === 'PATCH' ? `/iris/keys/${target.keyRef}` : `/iris/keys/${target.keyRef}/rotate`;
          const res = await callJson<Record<string, unknown>>(path, json(owner, kind === 'PATCH' ? 'PATCH' : 'POST', body));
          expect(refusedOrDone(res.status, res.body), JSON.stringify(res.body)).toBe(true);
          if (res.status === 201) await call(`/iris/keys/${(res.body.key as KeyAnswer).key_ref}`, json(owner, 'DELETE'));
          if (res.status === 200 && body.enabled === false) await call(`/iris/keys/${target.keyRef}/enable`, json(owner, 'POST'));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('property: any audit query (from, to, cursor, limit) is a page or 400/1111', async () => {
    const owner = await newAccount();
    await fc.assert(
      fc.asyncProperty(
        fc.record({ from: fc.string({ maxLength: 50 }), to: fc.oneof(fc.string({ maxLength: 50 }), fc.constant('2999-01-01')), cursor: fc.oneof(fc.string({ maxLength: 50 }), fc.nat().map(String)), limit: fc.oneof(fc.string({ maxLength: 8 }), fc.integer().map(String)) }, { requiredKeys: [] }),
        async (query) => {
          const res = await callJson<AuditPage & { error_code?: number }>(`/iris/audit?${new URLSearchParams(query)}`, { headers: keyHeaders(owner) });
          expect(refusedOrDone(res.status, res.body as never), JSON.stringify(res.body)).toBe(true);
          if (res.status === 200) expect(Array.isArray(res.body.results)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses key references that are not one, bodies that are not JSON, and unknown fields', async () => {
    const owner = await newAccount();
    for (const ref of ['x', 'kr' + '0'.repeat(20), '%00', 'a'.repeat(500)]) expect((await callJson(`/iris/keys/${ref}`, json(owner, 'GET'))).status).toBe(404);
    expect((await callJson('/iris/keys', { method: 'POST', headers: { ...keyHeaders(owner), 'content-type': 'application/json' }, body: '{nope' })).body.error_code).toBe(1111);
    expect((await callJson('/iris/keys', json(owner, 'POST', { secret: 'chosen-by-me' }))).body.error_code).toBe(1111);
    expect((await callJson('/iris/keys', json(owner, 'POST', { name: 'x'.repeat(20_000) }))).body.error_code).toBe(1111);
    const res = await callJson('/iris/keys', json(owner, 'POST', { scopes: ['read', 'read'] }));
    expect(res.body.error_code).toBe(1111);
  });
});
