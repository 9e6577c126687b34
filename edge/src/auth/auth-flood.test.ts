/**
 * What unknown or unproven credentials cost: D1 round trips of a flood of random key ids (counted by the
 * call's D1 counter, `x-iris-d1-queries`), and the rate-limit budget of a victim whose key id is known.
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { authFailures } from './failure-limiter.js';
import { unknownKeyCache } from '../cache/hot-path.cache.js';
import { admin, call, callJson, keyHeaders, newAccount, signedHeaders } from '../../test/helpers.js';

afterEach(() => authFailures.clear());

const counted = { EDGE_REPORT_D1_QUERIES: '1' };

function errorCode(body: unknown): number | undefined {
  const b = body as { error_code?: number; data?: { error_code?: number } };
  return b.error_code ?? b.data?.error_code;
}

async function randomKeyCall(address: string, keyId = `ak${newResourceId(22)}`, extraEnv: Record<string, string> = {}) {
  const res = await callJson('/get_image_sets/_0000014', {
    headers: { 'x-ca-version': '1', 'x-ca-accesskeyid': keyId, 'cf-connecting-ip': address },
    env: { ...counted, ...extraEnv },
  });
  return { status: res.status, code: errorCode(res.body), d1: Number(res.res.headers.get('x-iris-d1-queries') ?? 0), retryAfter: res.res.headers.get('retry-after') };
}

describe('unknown keys and failed authentications', () => {
  it('a flood of random key ids from one address reaches D1 only until its failure limit (then 429 with Retry-After)', async () => {
    const limits = { EDGE_AUTH_FAILURES_PER_ADDRESS: '5' };
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(await randomKeyCall('198.51.100.7', undefined, limits));
    const d1 = answers.reduce((n, a) => n + a.d1, 0);
    expect(answers.slice(0, 5).every((a) => a.status === 401 && a.code === 1102)).toBe(true);
    expect(answers.slice(5).every((a) => a.status === 429 && a.code === 1112 && a.retryAfter === '60')).toBe(true);
    // An unknown key costs at most three round trips (the key on a replica, the key on the primary, then keys
    // stored before migration 0002).
    expect(d1).toBeLessThanOrEqual(5 * 3);
    // Another address is not affected.
    expect((await randomKeyCall('198.51.100.8', undefined, limits)).code).toBe(1102);
  }, 60_000);

  it('random key ids from many addresses stop reaching D1 once the isolate-wide failure limit is met; known keys still pass', async () => {
    const known = await newAccount();
    // A known key in the isolate cache before the flood.
    expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(known), env: { EDGE_CACHE_TTL_MS: '600000' } })).status).toBe(200);
    const limits = { EDGE_AUTH_FAILURES_PER_ADDRESS: '3', EDGE_AUTH_FAILURES_PER_ISOLATE: '20', EDGE_CACHE_TTL_MS: '600000' };
    let d1 = 0;
    for (let i = 0; i < 120; i++) d1 += (await randomKeyCall(`203.0.113.${i}`, undefined, limits)).d1;
    expect(d1).toBeLessThanOrEqual(20 * 3);
    const res = await call('/get_image_sets/_0000014', { headers: keyHeaders(known), env: { ...limits, ...counted } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-iris-d1-queries')).toBe('0');
  }, 60_000);

  it('remembers an unknown key id (no D1 round trip on repeats) and forgets it when the key is created here', async () => {
    const keyId = `ak${newResourceId(22)}`;
    const first = await randomKeyCall('192.0.2.1', keyId);
    expect(first.code).toBe(1102);
    expect(first.d1).toBeGreaterThan(0);
    for (let i = 2; i < 12; i++) {
      const again = await randomKeyCall(`192.0.2.${i}`, keyId);
      expect(again.code).toBe(1102);
      expect(again.d1).toBe(0);
    }
    const account = await admin<{ id: number }>('POST', '/accounts', { name: 'late' });
    expect((await admin('POST', `/accounts/${account.body.id}/keys`, { key_id: keyId })).status).toBe(201);
    expect((await call('/get_image_sets/_0000014', { headers: { 'x-ca-accesskeyid': keyId } })).status).toBe(200);
  }, 60_000);

  it('random batch result links (no key) stop reaching D1 at the same failure limit', async () => {
    const expires = Math.floor(Date.now() / 1000) + 3600;
    let d1 = 0;
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await callJson(`/batch/_1000001/results/${newResourceId()}/results.csv?expires=${expires}&signature=${'ab'.repeat(32)}`, {
        headers: { 'cf-connecting-ip': '198.51.100.99' },
        env: { ...counted, EDGE_AUTH_FAILURES_PER_ADDRESS: '5' },
      });
      d1 += Number(res.res.headers.get('x-iris-d1-queries') ?? 0);
      codes.push(res.status);
    }
    expect(codes.slice(0, 5).every((s) => s === 400)).toBe(true);
    expect(codes.slice(5).every((s) => s === 429)).toBe(true);
    expect(d1).toBeLessThanOrEqual(5);
  }, 60_000);

  it('property: whatever the key ids, the isolate holds a bounded number of unknown ids and D1 is asked at most three times per failure allowed', async () => {
    const before = unknownKeyCache.size;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 8 }), async (ids) => {
        authFailures.clear();
        let d1 = 0;
        for (const id of ids) {
          const clean = id.replace(/[^\x21-\x7e]/g, 'x');
          const a = await randomKeyCall('192.0.2.200', clean, { EDGE_AUTH_FAILURES_PER_ADDRESS: '4' });
          expect([401, 429]).toContain(a.status);
          d1 += a.d1;
        }
        expect(d1).toBeLessThanOrEqual(4 * 3);
      }),
      { numRuns: 12 },
    );
    expect(unknownKeyCache.size - before).toBeLessThanOrEqual(12 * 4);
  }, 60_000);
});

describe('a victim key id in the hands of a stranger', () => {
  const limited = { KEY_RATE_LIMITER: env.TEST_RATE_LIMITER, RATE_LIMIT_PERIOD_SECONDS: '60', EDGE_AUTH_FAILURES_PER_ADDRESS: '1000' };

  it('unsigned and wrongly signed calls do not spend the rate limit of a key that requires signatures', async () => {
    const victim = await newAccount({ signatureRequired: true });
    for (let i = 0; i < 5; i++) {
      const unsigned = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(victim), env: limited });
      expect(unsigned.body).toMatchObject({ error_code: 1104 });
      const forged = await signedHeaders({ ...victim, secret: 'not-the-secret' }, { requestMethod: 'GET' });
      expect((await callJson('/get_image_sets/_0000014', { headers: forged, env: limited })).body).toMatchObject({ error_code: 1104 });
    }
    // The test limiter allows 3 calls per key: the victim still has all three.
    for (let i = 0; i < 3; i++) expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(victim, { requestMethod: 'GET' }), env: limited })).status).toBe(200);
    expect((await callJson('/get_image_sets/_0000014', { headers: await signedHeaders(victim, { requestMethod: 'GET' }), env: limited })).status).toBe(429);
  }, 60_000);

  it('a wrongly signed call does not spend the budget of a key that does not require signatures', async () => {
    const victim = await newAccount();
    for (let i = 0; i < 5; i++) {
      const forged = await signedHeaders({ ...victim, secret: 'not-the-secret' }, { requestMethod: 'GET' });
      expect((await callJson('/get_image_sets/_0000014', { headers: forged, env: limited })).body).toMatchObject({ error_code: 1104 });
    }
    for (let i = 0; i < 3; i++) expect((await call('/get_image_sets/_0000014', { headers: keyHeaders(victim), env: limited })).status).toBe(200);
  }, 60_000);

  it('a wrongly signed streamed upload does not spend the victim budget either', async () => {
    const victim = await newAccount({ signatureRequired: true });
    const boundary = `----iris${newResourceId(16)}`;
    const body = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n${'x'.repeat(4096)}\r\n--${boundary}--\r\n`);
    for (let i = 0; i < 4; i++) {
      const forged = await signedHeaders({ ...victim, secret: 'not-the-secret' });
      const res = await callJson('/bad_cases/_0000204', {
        method: 'POST',
        headers: { ...forged, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.byteLength) },
        body,
        env: { ...limited, EDGE_STREAM_MIN_BYTES: '1' },
      });
      expect(errorCode(res.body)).toBe(1104);
    }
    for (let i = 0; i < 3; i++) expect((await call('/get_image_sets/_0000014', { headers: await signedHeaders(victim, { requestMethod: 'GET' }), env: limited })).status).toBe(200);
  }, 60_000);
});
