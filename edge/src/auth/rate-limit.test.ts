import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { callJson, keyHeaders, newAccount } from '../../test/helpers.js';

describe('per-key rate limit (Workers rate-limiting binding)', () => {
  it('answers 429/1112 in the family shape with Retry-After once a key is over its limit; other keys go on', async () => {
    const limited = { KEY_RATE_LIMITER: env.TEST_RATE_LIMITER, RATE_LIMIT_PERIOD_SECONDS: '60' };
    const a = await newAccount();
    const b = await newAccount();
    for (let i = 0; i < 3; i++) expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(a), env: limited })).status).toBe(200);
    const over = await callJson('/get_image_sets/_0000014', { headers: keyHeaders(a), env: limited });
    expect(over.status).toBe(429);
    expect(over.res.headers.get('retry-after')).toBe('60');
    expect(over.body).toMatchObject({ error_code: 1112 });
    const analysis = await callJson<{ data: Record<string, unknown>; status: number }>('/detect/_0000049', { method: 'POST', headers: keyHeaders(a), env: limited });
    expect(analysis.body).toMatchObject({ status: 429, data: { is_err: 1, error_code: 1112 } });
    const batch = await callJson('/batch/_1000001/tasks', { headers: keyHeaders(a), env: limited });
    expect(batch.body).toMatchObject({ is_error: 1, data: { error_code: 1112 } });
    expect((await callJson('/get_image_sets/_0000014', { headers: keyHeaders(b), env: limited })).status).toBe(200);
  });
});
