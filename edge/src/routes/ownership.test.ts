import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS, QUOTA_FIELDS, type ResourceKind } from '@iris/shared';
import { admin, callJson, echoBody, keyHeaders, newAccount, resourceRow, seedResource, type BackendEcho, type TestAccount } from '../../test/helpers.js';

let owner: TestAccount;
let stranger: TestAccount;
beforeAll(async () => {
  owner = await newAccount();
  stranger = await newAccount();
});

const json = (account: TestAccount, body: unknown) => ({
  method: 'POST',
  headers: { ...keyHeaders(account), 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

interface KindCase {
  kind: ResourceKind;
  path: (id: string) => string;
  method?: string;
  unknown: [number, number];
  foreign: [number, number];
}

const CASES: KindCase[] = [
  { kind: 'image_set', path: (id) => `/image_sets/_0000014/${id}`, unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'image_set', path: (id) => `/image_sets/_0000014/${id}/services`, method: 'GET', unknown: [404, 2001], foreign: [403, 1002] },
  { kind: 'product_set', path: (id) => `/product_sets/_0000178/${id}`, unknown: [404, 1004], foreign: [403, 1005] },
  { kind: 'product_set', path: (id) => `/product_sets/_0000178/${id}/products`, method: 'DELETE', unknown: [404, 1004], foreign: [403, 1005] },
  { kind: 'training_set', path: (id) => `/custom_training/_0000194/training_sets/${id}/images`, method: 'POST', unknown: [404, 2001], foreign: [404, 2001] },
  { kind: 'training_set', path: (id) => `/custom_training/_0000194/training_sets/${id}/clear`, method: 'DELETE', unknown: [404, 2001], foreign: [404, 2001] },
  { kind: 'search_service', path: (id) => `/customer_services/_0000172/${id}`, unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'search_service', path: (id) => `/product_sets/_0000178/services/${id}`, method: 'PATCH', unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'search_service', path: (id) => `/search/${id}`, method: 'POST', unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'search_service', path: (id) => `/product_search/${id}`, method: 'POST', unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'custom_service', path: (id) => `/custom_training/_0000194/services/${id}`, unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'custom_service', path: (id) => `/custom_training/${id}`, method: 'POST', unknown: [404, 2002], foreign: [404, 2002] },
  { kind: 'batch_task', path: (id) => `/batch/_1000001/task/info/${id}`, unknown: [400, 400011], foreign: [400, 400011] },
  { kind: 'batch_task', path: (id) => `/batch/_1000001/task/revoke/${id}`, method: 'POST', unknown: [400, 400011], foreign: [400, 400011] },
  { kind: 'batch_task', path: (id) => `/batch/_1000001/results/${id}/result.csv`, unknown: [400, 400011], foreign: [400, 400011] },
];

function codeOf(body: Record<string, unknown>): number | undefined {
  if (typeof body.error_code === 'number') return body.error_code;
  const data = body.data as Record<string, unknown> | undefined;
  return data?.error_code as number | undefined;
}

describe('by-id checks per kind', () => {
  for (const c of CASES) {
    it(`${c.method ?? 'GET'} ${c.path('{id}')}: owner passes, unknown ${c.unknown.join('/')}, foreign ${c.foreign.join('/')}, other region 404`, async () => {
      const id = await seedResource(c.kind, owner.accountId);
      const method = c.method ?? 'GET';
      const mine = await callJson<BackendEcho>(c.path(id), { method, headers: keyHeaders(owner) });
      expect(mine.status).toBe(200);
      expect(mine.body.url).toBe(c.path(id));
      expect(mine.body.account).toBe(owner.accountId);

      const unknown = await callJson(c.path('doesnotexist0000'), { method, headers: keyHeaders(owner) });
      expect([unknown.status, codeOf(unknown.body)]).toEqual(c.unknown);

      const foreign = await callJson(c.path(id), { method, headers: keyHeaders(stranger) });
      expect([foreign.status, codeOf(foreign.body)]).toEqual(c.foreign);

      const otherRegion = await callJson(c.path(id), { method, headers: keyHeaders(owner), host: 'ap-southeast.localhost:8787' });
      expect([otherRegion.status, codeOf(otherRegion.body)]).toEqual(c.unknown);

      const deleted = await seedResource(c.kind, owner.accountId, { state: 'deleted' });
      const gone = await callJson(c.path(deleted), { method, headers: keyHeaders(owner) });
      expect([gone.status, codeOf(gone.body)]).toEqual(c.unknown);
    });
  }

  it('checks task_id of /batch/_1000001/task/apply from a form, multipart or JSON body', async () => {
    const task = await seedResource('batch_task', owner.accountId);
    const form = await callJson<BackendEcho>('/batch/_1000001/task/apply', {
      method: 'POST',
      headers: { ...keyHeaders(owner), 'content-type': 'application/x-www-form-urlencoded' },
      body: `task_id=${task}`,
    });
    expect(form.status).toBe(200);
    expect(echoBody(form.body)).toBe(`task_id=${task}`);

    const multipart = new FormData();
    multipart.append('task_id', task);
    expect((await callJson('/batch/_1000001/task/apply', { method: 'POST', headers: keyHeaders(owner), body: multipart })).status).toBe(200);
    expect((await callJson('/batch/_1000001/task/apply', json(owner, { task_id: task }))).status).toBe(200);

    const foreign = await callJson('/batch/_1000001/task/apply', json(stranger, { task_id: task }));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ is_error: 1, data: { error_code: 400011 } });
    const missing = await callJson('/batch/_1000001/task/apply', { method: 'POST', headers: keyHeaders(owner) });
    expect(missing.body).toMatchObject({ is_error: 1, data: { error_code: 400011 } });
  });
});

describe('creates', () => {
  const creates: { path: (parent: string) => string; parent?: ResourceKind; kind: ResourceKind }[] = [
    { path: () => '/image_sets/_0000014', kind: 'image_set' },
    { path: (p) => `/image_sets/_0000014/${p}/services`, parent: 'image_set', kind: 'search_service' },
    { path: () => '/product_sets/_0000178', kind: 'product_set' },
    { path: (p) => `/product_sets/_0000178/${p}/services`, parent: 'product_set', kind: 'search_service' },
    { path: () => '/custom_training/_0000194/training_sets', kind: 'training_set' },
    { path: (p) => `/custom_training/_0000194/training_sets/${p}/services`, parent: 'training_set', kind: 'custom_service' },
    { path: () => '/batch/_1000001/task/prepare', kind: 'batch_task' },
  ];
  for (const c of creates) {
    it(`POST ${c.path('{id}')} mints a ${c.kind} id, forwards it signed with the raw body, and registers it live`, async () => {
      const parent = c.parent ? await seedResource(c.parent, owner.accountId) : '';
      const body = '{"name": "名前", "description": "d", "scenario": "classifier"}';
      const res = await callJson<BackendEcho>(c.path(parent), { method: 'POST', headers: { ...keyHeaders(owner), 'content-type': 'application/json', 'accept-language': 'zh-CN' }, body });
      expect(res.status).toBe(200);
      expect(res.body.verified).toBe(true);
      expect(echoBody(res.body)).toBe(body);
      const minted = res.body.context?.resourceId;
      expect(minted).toMatch(/^[a-z0-9]{20}$/);
      expect(res.body.context).toMatchObject({ requestId: res.body.request_id, lang: 'zh', quotas: { imageSets: 100, dailyBatchTasks: 100 } });
      expect(res.res.headers.get('x-iris-registry')).toBeNull();
      expect(await resourceRow(minted!)).toMatchObject({ state: 'live', kind: c.kind, account_id: owner.accountId, region: 'cn-east' });
    });
  }

  it('a create the backend refuses or does not confirm leaves no row', async () => {
    const refused = await callJson<BackendEcho>('/image_sets/_0000014', { ...json(owner, { name: 'x' }), headers: { ...keyHeaders(owner), 'x-test-backend': 'json-error:400' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 5001 });
    const unconfirmed = await callJson<BackendEcho>('/image_sets/_0000014', { ...json(owner, { name: 'x' }), headers: { ...keyHeaders(owner), 'x-test-backend': 'no-confirm' } });
    expect(unconfirmed.status).toBe(200);
    expect(await resourceRow(unconfirmed.body.context!.resourceId!)).toBeNull();
  });

  it('a create whose backend is unreachable leaves no row', async () => {
    const account = await newAccount();
    await admin('PUT', `/accounts/${account.accountId}/quotas`, { image_sets: 1 });
    const down = await callJson('/image_sets/_0000014', { ...json(account, { name: 'x' }), env: { BACKEND_URL_CN_EAST: 'http://127.0.0.1:9' } });
    expect(down.status).toBe(502);
    // The failed create did not use up the quota of one.
    expect((await callJson('/image_sets/_0000014', json(account, { name: 'x' }))).status).toBe(200);
  });

  it('settles a create whose answer was lost: an old pending row is checked with the backend on first use', async () => {
    const old = Date.now() - 10 * 60_000;
    const created = await seedResource('image_set', owner.accountId, { state: 'pending', createdAt: old, id: 'made00000000000000001' });
    const found = await callJson<BackendEcho>(`/image_sets/_0000014/${created}`, { headers: keyHeaders(owner) });
    expect(found.status).toBe(200);
    expect(found.body.url).toBe(`/image_sets/_0000014/${created}`);
    expect((await resourceRow(created))?.state).toBe('live');

    const lost = await seedResource('image_set', owner.accountId, { state: 'pending', createdAt: old, id: 'gone00000000000000001' });
    const missing = await callJson(`/image_sets/_0000014/${lost}`, { headers: keyHeaders(owner) });
    expect([missing.status, codeOf(missing.body)]).toEqual([404, 2001]);
    expect((await resourceRow(lost))?.state).toBe('deleted');

    // A create still within its time is not settled early; another account's pending row is never checked.
    const recent = await seedResource('image_set', owner.accountId, { state: 'pending', id: 'made00000000000000002' });
    expect((await callJson(`/image_sets/_0000014/${recent}`, { headers: keyHeaders(owner) })).status).toBe(404);
    expect((await resourceRow(recent))?.state).toBe('pending');
    const foreign = await seedResource('image_set', stranger.accountId, { state: 'pending', createdAt: old, id: 'made00000000000000003' });
    expect((await callJson(`/image_sets/_0000014/${foreign}`, { headers: keyHeaders(owner) })).status).toBe(404);
    expect((await resourceRow(foreign))?.state).toBe('pending');
  });

  it('does not forward internal backend paths', async () => {
    const res = await callJson<BackendEcho>('/internal/registry/image_set/made00000000000000001', { headers: keyHeaders(owner) });
    expect(res.status).toBe(404);
    expect(res.body.url).toBeUndefined();
  });

  it('applies deletions reported by the backend, only for the caller', async () => {
    const mine = await seedResource('image_set', owner.accountId);
    const theirs = await seedResource('image_set', stranger.accountId);
    const res = await callJson('/image_sets/_0000014', {
      headers: { ...keyHeaders(owner), 'x-test-backend': `registry:${JSON.stringify({ deleted: [mine, theirs] })}` },
    });
    expect(res.status).toBe(200);
    expect(res.res.headers.get('x-iris-registry')).toBeNull();
    expect((await resourceRow(mine))?.state).toBe('deleted');
    expect((await resourceRow(theirs))?.state).toBe('live');
    const after = await callJson(`/image_sets/_0000014/${mine}`, { headers: keyHeaders(owner) });
    expect([after.status, after.body.error_code]).toEqual([404, 2001]);
  });
});

describe('quotas', () => {
  const cases = [
    { quota: 'image_sets', path: () => '/image_sets/_0000014', code: 3003 },
    { quota: 'training_sets', path: () => '/custom_training/_0000194/training_sets', code: 3002 },
    { quota: 'custom_services', path: (p: string) => `/custom_training/_0000194/training_sets/${p}/services`, parent: 'training_set' as const, code: 3004 },
    { quota: 'product_sets', path: () => '/product_sets/_0000178', code: 3005 },
    { quota: 'search_services', path: (p: string) => `/image_sets/_0000014/${p}/services`, parent: 'image_set' as const, code: 3006 },
    { quota: 'search_services', path: (p: string) => `/product_sets/_0000178/${p}/services`, parent: 'product_set' as const, code: 3006 },
  ];
  for (const c of cases) {
    it(`${c.quota}: creates stop at the account's quota with 403/${c.code}`, async () => {
      const account = await newAccount();
      const set = await admin('PUT', `/accounts/${account.accountId}/quotas`, { [c.quota]: 2 });
      expect(set.body[c.quota]).toBe(2);
      const parent = c.parent ? await seedResource(c.parent, account.accountId) : '';
      for (let i = 0; i < 2; i++) expect((await callJson(c.path(parent), json(account, { name: `n${i}`, description: 'd' }))).status).toBe(200);
      const over = await callJson(c.path(parent), json(account, { name: 'over', description: 'd' }));
      expect(over.status).toBe(403);
      expect(over.body.error_code).toBe(c.code);
    });
  }

  it('at the quota, a create without a name answers the name code (400/5004, 400/1007), not the quota', async () => {
    const account = await newAccount();
    await admin('PUT', `/accounts/${account.accountId}/quotas`, { image_sets: 0, training_sets: 0, product_sets: 0 });
    for (const [path, body, code] of [
      ['/image_sets/_0000014', {}, 5004],
      ['/image_sets/_0000014', { name: '   ' }, 5004],
      ['/custom_training/_0000194/training_sets', { name: 'n' }, 5004],
      ['/product_sets/_0000178', { description: 'd' }, 1007],
    ] as const) {
      const res = await callJson(path, json(account, body));
      expect([res.status, res.body.error_code], `${path} ${JSON.stringify(body)}`).toEqual([400, code]);
    }
    const named = await callJson('/image_sets/_0000014', json(account, { name: 'x'.repeat(5000) }));
    expect([named.status, named.body.error_code]).toEqual([403, 3003]);
  });

  it('passes the daily batch quota to the backend in the context', async () => {
    const account = await newAccount();
    await admin('PUT', `/accounts/${account.accountId}/quotas`, { daily_batch_tasks: 3 });
    const res = await callJson<BackendEcho>('/batch/_1000001/tasks', { headers: keyHeaders(account) });
    expect(res.body.context?.quotas).toEqual({ ...DEFAULT_QUOTAS, dailyBatchTasks: 3 });
  });

  it('sets, shows and restores every quota of QUOTA_FIELDS', async () => {
    const account = await newAccount();
    const changes = Object.fromEntries(QUOTA_FIELDS.map((f, i) => [f.api, i + 1]));
    const set = await admin('PUT', `/accounts/${account.accountId}/quotas`, changes);
    expect(set.body).toEqual(changes);
    expect((await admin('GET', `/accounts/${account.accountId}/quotas`)).body).toEqual(changes);
    const res = await callJson<BackendEcho>('/batch/_1000001/tasks', { headers: keyHeaders(account) });
    expect(res.body.context?.quotas).toEqual(Object.fromEntries(QUOTA_FIELDS.map((f, i) => [f.key, i + 1])));
    const restored = await admin('PATCH', `/accounts/${account.accountId}/quotas`, { stored_bytes: null });
    expect(restored.body.stored_bytes).toBe(DEFAULT_QUOTAS.storedBytes);
    expect(restored.body.records).toBe(9);
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { records: -1 })).status).toBe(400);
    expect((await admin('PUT', `/accounts/${account.accountId}/quotas`, { unknown_quota: 1 })).status).toBe(400);
  });
});
