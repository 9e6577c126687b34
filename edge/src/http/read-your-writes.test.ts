import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { accountBookmark, rememberAccountBookmark } from '../cache/account-bookmarks.cache.js';
import { clearHotPathCaches } from '../cache/hot-path.cache.js';
import { laterBookmark } from '../db/call-session.js';
import { callJson, keyHeaders, newAccount, type BackendEcho, type TestAccount } from '../../test/helpers.js';
import { laggingD1, newSessionLog, recordingD1, replicate, type SessionLog } from '../../test/replication.js';

/** Everything an account's calls read before they reach its resources: what a replica had before the create. */
const ACCOUNT_TABLES = ['accounts', 'access_keys', 'account_quotas', 'service_grants', 'resources'];
const counted = { EDGE_REPORT_D1_QUERIES: '1', EDGE_CACHE_TTL_MS: '60000' };
const queries = (res: Response) => Number(res.headers.get('x-iris-d1-queries'));

beforeEach(() => clearHotPathCaches());

/** A replica that has what the primary has now and nothing written after: a D1 whose reads lag behind it. */
async function replicaOfNow(): Promise<{ log: SessionLog; db: D1Database }> {
  await replicate(env.DB, env.TEST_REPLICA, ACCOUNT_TABLES);
  const log = newSessionLog();
  return { log, db: laggingD1(env.DB, env.TEST_REPLICA, log) };
}

function createSet(account: TestAccount, db: D1Database) {
  return callJson<BackendEcho>('/image_sets/_0000014', {
    method: 'POST',
    headers: { ...keyHeaders(account), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'set' }),
    env: { ...counted, DB: db },
  });
}

function addImage(account: TestAccount, setId: string, db: D1Database) {
  return callJson<BackendEcho & { error_code?: number }>(`/image_sets/_0000014/${setId}`, {
    method: 'POST',
    headers: { ...keyHeaders(account), 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/a.jpg' }),
    env: { ...counted, DB: db },
  });
}

function prepareTask(account: TestAccount, db: D1Database) {
  const form = new FormData();
  form.append('service_id', '_0000024');
  form.append('urls', new Blob(['https://example.com/a.jpg\nhttps://example.com/b.jpg\n']), 'urls.txt');
  return callJson<BackendEcho>('/batch/_1000001/task/prepare', { method: 'POST', headers: keyHeaders(account), body: form, env: { ...counted, DB: db } });
}

function applyTask(account: TestAccount, taskId: string, db: D1Database) {
  return callJson<BackendEcho & { data?: { error_code: number } }>('/batch/_1000001/task/apply', {
    method: 'POST',
    headers: { ...keyHeaders(account), 'content-type': 'application/json' },
    body: JSON.stringify({ task_id: taskId }),
    env: { ...counted, DB: db },
  });
}

describe('read-your-writes in one isolate: calls after a write carry its bookmark', () => {
  it('a create, then calls of the same account open at the create bookmark; another account stays unconstrained', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const log: SessionLog = newSessionLog();
    const db = recordingD1(env.DB, log);

    const created = await createSet(owner, db);
    expect(created.status).toBe(200);
    expect(log.opened).toEqual(['first-unconstrained']);
    expect(queries(created.res)).toBe(3); // key, reserve, confirm
    const setId = created.body.context!.resourceId!;
    const written = log.bookmarks.at(-1)!;
    expect(written).toMatch(/\S/);
    expect(accountBookmark(owner.accountId)).toBe(written);

    log.opened.length = 0;
    const added = await addImage(owner, setId, db);
    expect(added.status).toBe(200);
    expect(added.body.account).toBe(owner.accountId);
    expect(log.opened).toEqual([written]);
    expect(queries(added.res)).toBe(1); // the registry row (the key is warm)

    log.opened.length = 0;
    const stranger = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(other), env: { ...counted, DB: db } });
    expect(stranger.status).toBe(200);
    expect(log.opened).toEqual(['first-unconstrained']);
    expect(accountBookmark(other.accountId)).toBeUndefined();
  });

  it('a cold key read first (from a replica): the session moves on to the bookmark once the account is known', async () => {
    const owner = await newAccount();
    const { log, db } = await replicaOfNow();
    const created = await createSet(owner, db);
    const written = accountBookmark(owner.accountId)!;
    expect(written).toBe(log.bookmarks.at(-1));
    clearHotPathCaches();
    rememberAccountBookmark(owner.accountId, written); // this isolate forgot the key, not the write

    log.opened.length = 0;
    const added = await addImage(owner, created.body.context!.resourceId!, db);
    expect(added.status).toBe(200);
    expect(log.opened).toEqual(['first-unconstrained', written]); // the key lookup, then the registry row at the bookmark
    expect(queries(added.res)).toBe(2);
  });

  it('hostile: a bookmark or constraint sent by the client is ignored', async () => {
    const owner = await newAccount();
    const log = newSessionLog();
    const db = recordingD1(env.DB, log);
    for (const value of ['first-primary', '00000000-ffffffff-00000000-00000000000000000000000000000000', 'x'.repeat(10_000)]) {
      log.opened.length = 0;
      clearHotPathCaches();
      const res = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(owner, { 'x-d1-bookmark': value, 'x-iris-d1-bookmark': value }), env: { ...counted, DB: db } });
      expect(res.status).toBe(200);
      expect(log.opened).toEqual(['first-unconstrained']);
    }
  });

  it('a deletion the backend reports is a write of the caller: its next call reads at that bookmark', async () => {
    const owner = await newAccount();
    const log = newSessionLog();
    const db = recordingD1(env.DB, log);
    const setId = (await createSet(owner, db)).body.context!.resourceId!;
    const created = accountBookmark(owner.accountId)!;
    const deleted = await callJson(`/image_sets/_0000014/${setId}`, { method: 'DELETE', headers: keyHeaders(owner, { 'x-test-backend': `no-content:${setId}` }), env: { ...counted, DB: db } });
    expect(deleted.status).toBe(204);
    const afterDelete = accountBookmark(owner.accountId)!;
    expect(afterDelete > created).toBe(true);
    log.opened.length = 0;
    const gone = await addImage(owner, setId, db);
    expect(gone.status).toBe(404);
    expect(gone.body.error_code).toBe(2001);
    expect(log.opened).toEqual([afterDelete]);
  });

  it('reads that write nothing of the caller (signed calls write only their nonce) leave no bookmark', async () => {
    const owner = await newAccount();
    const log = newSessionLog();
    const res = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(owner), env: { ...counted, DB: recordingD1(env.DB, log) } });
    expect(res.status).toBe(200);
    expect(accountBookmark(owner.accountId)).toBeUndefined();
  });
});

describe('read-your-writes across isolates: a lagging replica is caught by the primary', () => {
  it('the replica seam lags: a write on the primary is not on the replica until replicated', async () => {
    const owner = await newAccount();
    const created = await createSet(owner, (await replicaOfNow()).db);
    const setId = created.body.context!.resourceId!;
    const query = 'SELECT state FROM resources WHERE id = ?';
    const onReplica = await laggingD1(env.DB, env.TEST_REPLICA, newSessionLog()).withSession('first-unconstrained').prepare(query).bind(setId).first();
    expect(onReplica).toBeNull();
    expect(await env.DB.prepare(query).bind(setId).first()).toEqual({ state: 'live' });
  });

  it('create-then-add through another isolate answers 200, not 404/2001 (one extra read, on the primary)', async () => {
    const owner = await newAccount();
    const { log, db } = await replicaOfNow();
    const created = await createSet(owner, db);
    expect(created.status).toBe(200);

    clearHotPathCaches(); // the next call lands in an isolate that has seen neither the key nor the write
    log.opened.length = 0;
    const added = await addImage(owner, created.body.context!.resourceId!, db);
    expect(added.status).toBe(200);
    expect(added.body.account).toBe(owner.accountId);
    expect(log.opened).toEqual(['first-unconstrained', 'first-primary']);
    expect(queries(added.res)).toBe(3); // key (replica), registry row (replica: absent), registry row (primary)

    // Warm again: the live row is cached, no D1 round trip.
    const again = await addImage(owner, created.body.context!.resourceId!, db);
    expect(again.status).toBe(200);
    expect(queries(again.res)).toBe(0);
  });

  it('prepare-then-apply through another isolate answers 200, not 400011', async () => {
    const owner = await newAccount();
    const { db } = await replicaOfNow();
    const prepared = await prepareTask(owner, db);
    expect(prepared.status).toBe(200);
    clearHotPathCaches();
    const applied = await applyTask(owner, prepared.body.context!.resourceId!, db);
    expect(applied.status).toBe(200);
    expect(applied.body.data?.error_code).toBeUndefined();
  });

  it('an id that exists nowhere is still refused (404/2001) after asking the primary', async () => {
    const owner = await newAccount();
    const { log, db } = await replicaOfNow();
    const missing = await addImage(owner, 'doesnotexist0000', db);
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe(2001);
    expect(log.opened).toEqual(['first-unconstrained', 'first-primary']);
    expect(queries(missing.res)).toBe(3); // key (replica), row (replica), row (primary)
  });

  it('a key just issued through the admin API works at once, though the replica has not seen it', async () => {
    const { db } = await replicaOfNow();
    const owner = await newAccount();
    const res = await callJson<BackendEcho>('/get_image_sets/_0000014', { headers: keyHeaders(owner), env: { ...counted, DB: db } });
    expect(res.status).toBe(200);
    expect(res.body.account).toBe(owner.accountId);
    expect(queries(res.res)).toBe(2); // the key on the replica (absent), then on the primary
  });
});

describe('bookmark order', () => {
  const bookmark = fc.tuple(fc.nat(0xffffffff), fc.nat(0xffffffff)).map(([a, b]) => `${a.toString(16).padStart(8, '0')}-${b.toString(16).padStart(8, '0')}`);

  it('the account keeps the latest bookmark whatever order its calls end in', () => {
    fc.assert(
      fc.property(fc.array(bookmark, { minLength: 1, maxLength: 20 }), fc.integer({ min: 1, max: 1_000_000 }), (bookmarks, accountId) => {
        clearHotPathCaches();
        for (const b of bookmarks) rememberAccountBookmark(accountId, b);
        expect(accountBookmark(accountId)).toBe([...bookmarks].sort().at(-1));
      }),
    );
  });

  it('laterBookmark is the maximum, ignoring absent ones', () => {
    fc.assert(
      fc.property(fc.option(bookmark, { nil: undefined }), fc.option(bookmark, { nil: undefined }), (a, b) => {
        const later = laterBookmark(a, b);
        expect(later).toBe(laterBookmark(b, a));
        if (a) expect(later! >= a).toBe(true);
        if (b) expect(later! >= b).toBe(true);
        expect([a, b]).toContain(later);
      }),
    );
  });
});
