/**
 * Webhooks on a real backend (real PostgreSQL, the dispatcher running) delivering to a real HTTP receiver on
 * loopback: registration rules, signed deliveries, retries with back-off, time limits, and the outbox's
 * transaction and lease rules.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, type WebhookEndpoint } from '@iris/shared';
import type { z } from 'zod';
import { inTransaction } from '../../src/db/transaction.js';
import { recordEvent } from '../../src/domains/webhooks/webhook-event.repo.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';
import { waitUntil } from '../support/wait-for.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

type Endpoint = z.output<typeof WebhookEndpoint>;

let backend: TestBackend;
let receiver: Receiver;
const ACCOUNT = 41;

beforeAll(async () => {
  receiver = await startReceiver();
  backend = await startTestBackend(
    {
      IRIS_WEBHOOK_ALLOW_LOOPBACK: '1',
      IRIS_WEBHOOK_POLL_MS: '50',
      IRIS_WEBHOOK_RETRY_BASE_SECONDS: '0.2',
      IRIS_WEBHOOK_RETRY_CAP_SECONDS: '1',
      IRIS_WEBHOOK_TIMEOUT_MS: '1500',
      IRIS_WEBHOOKS_PER_ACCOUNT: '3',
    },
    { workers: false },
  );
});
afterAll(async () => {
  await backend?.close();
  await receiver?.close();
});

async function register(accountId: number, payload: object) {
  const res = await backend.call({ method: 'POST', url: '/iris/webhooks', accountId, payload });
  return { status: res.statusCode, body: res.json() };
}
async function list(accountId: number): Promise<Endpoint[]> {
  const res = await backend.call({ method: 'GET', url: '/iris/webhooks', accountId });
  expect(res.statusCode).toBe(200);
  return res.json().results;
}
async function endpoint(accountId: number, id: string): Promise<Endpoint | undefined> {
  return (await list(accountId)).find((e) => e.id === id);
}
async function remove(accountId: number, id: string) {
  return backend.call({ method: 'DELETE', url: `/iris/webhooks/${id}`, accountId });
}
const emit = (accountId: number, data: Record<string, unknown>) => recordEvent(backend.app.db.pool, { accountId, type: 'batch_task.finished', data });

describe('registering endpoints', () => {
  it('answers the secret once, lists without it, and deletes', async () => {
    const made = await register(ACCOUNT + 100, { url: `${receiver.base}/ok`, events: 'batch_task.finished, search_service.indexed', description: ' mine ' });
    expect(made.status).toBe(200);
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(made.body.events).toEqual(['batch_task.finished', 'search_service.indexed']);
    expect(made.body.description).toBe('mine');
    const listed = await list(ACCOUNT + 100);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('secret');
    expect(listed[0]!.last_delivery).toBeNull();
    expect(await list(ACCOUNT + 101)).toEqual([]);
    // Another account's endpoint does not exist for it.
    expect((await remove(ACCOUNT + 101, made.body.id)).json().error_code).toBe(1120);
    expect((await remove(ACCOUNT + 100, made.body.id)).statusCode).toBe(204);
    expect((await remove(ACCOUNT + 100, made.body.id)).statusCode).toBe(404);
    expect(await list(ACCOUNT + 100)).toEqual([]);
  });

  it('refuses hostile URLs and events with 400/5001, and a fourth endpoint with 403/3020', async () => {
    const refused = [
      { url: 'ftp://example.com/hook' },
      { url: 'http://example.com/hook' },
      { url: 'https://10.0.0.1/hook' },
      { url: 'https://[::ffff:192.168.1.1]/hook' },
      { url: 'https://169.254.169.254/latest/meta-data' },
      { url: 'https://user:password@example.com/hook' },
      { url: 'not a url' },
      { url: '   ' },
      { url: `https://example.com/${'a'.repeat(3000)}` },
      { url: `${receiver.base}/ok`, events: ['batch_task.finished', 'everything'] },
      { url: `${receiver.base}/ok`, events: ' , ' },
      { url: `${receiver.base}/ok`, description: 'd'.repeat(300) },
      {},
    ];
    for (const body of refused) {
      const res = await register(ACCOUNT + 200, body);
      expect([res.status, res.body.error_code], JSON.stringify(body).slice(0, 80)).toEqual([400, 5001]);
    }
    for (let i = 0; i < 3; i++) expect((await register(ACCOUNT + 200, { url: `${receiver.base}/ok?n=${i}` })).status).toBe(200);
    const over = await register(ACCOUNT + 200, { url: `${receiver.base}/ok?n=4` });
    expect([over.status, over.body.error_code]).toEqual([403, 3020]);
    expect((await list(ACCOUNT + 200)).map((e) => e.events)).toEqual([[...WEBHOOK_EVENTS], [...WEBHOOK_EVENTS], [...WEBHOOK_EVENTS]]);
  });
});

describe('deliveries', () => {
  it('signs the body with the endpoint secret (HMAC-SHA256 over timestamp.body) and shows the delivery', async () => {
    const made = await register(ACCOUNT, { url: `${receiver.base}/ok`, events: ['batch_task.finished'] });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const secret: string = made.body.secret;
    expect(await emit(ACCOUNT, { task_id: 'signed-1' })).toBe(1);
    const got = await waitUntil(async () => receiver.received.find((r) => r.body.includes('signed-1')), Boolean, 30_000);
    const header = String(got!.headers['iris-signature']);
    const { t, v1 } = Object.fromEntries(header.split(',').map((kv) => kv.split('='))) as { t: string; v1: string };
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(600);
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${got!.body}`).digest('hex'));
    expect(v1).not.toBe(createHmac('sha256', 'another secret').update(`${t}.${got!.body}`).digest('hex'));
    const body = JSON.parse(got!.body);
    expect(body).toMatchObject({ type: 'batch_task.finished', data: { task_id: 'signed-1' } });
    expect(got!.headers['iris-event']).toBe('batch_task.finished');
    expect(got!.headers['iris-delivery']).toBe(body.id);
    expect(got!.headers['content-type']).toBe('application/json');
    const shown = await waitUntil(() => endpoint(ACCOUNT, made.body.id), (e) => e?.last_delivery?.state === 'delivered', 30_000);
    expect(shown!.last_delivery).toMatchObject({ event_id: body.id, http_status: 200, attempts: 1, error: null, next_attempt_at: null });
    expect(shown!.pending_deliveries).toBe(0);
    await remove(ACCOUNT, made.body.id);
  });

  it('retries after a 500 with back-off visible in the list, then delivers', async () => {
    const made = await register(ACCOUNT + 1, { url: `${receiver.base}/flaky` });
    await emit(ACCOUNT + 1, { task_id: 'flaky-1' });
    const waiting = await waitUntil(() => endpoint(ACCOUNT + 1, made.body.id), (e) => e?.last_delivery?.http_status === 500, 30_000);
    const d = waiting!.last_delivery!;
    expect(d.state).toBe('pending');
    expect(d.attempts).toBeGreaterThanOrEqual(1);
    expect(d.error).toBe('the endpoint answered HTTP 500');
    expect(Date.parse(d.next_attempt_at!)).toBeGreaterThanOrEqual(Date.parse(d.last_attempt_at!));
    expect(waiting!.pending_deliveries).toBe(1);
    receiver.openGate();
    const done = await waitUntil(() => endpoint(ACCOUNT + 1, made.body.id), (e) => e?.last_delivery?.state === 'delivered', 30_000);
    expect(done!.last_delivery!.attempts).toBeGreaterThanOrEqual(2);
    expect(done!.last_delivery!.http_status).toBe(200);
    const bodies = receiver.received.filter((r) => r.path === '/flaky').map((r) => r.body);
    // Every attempt sends the same event (same id, same bytes); only the signature's timestamp moves.
    expect(new Set(bodies).size).toBe(1);
  });

  it('a receiver that never answers times out, while another endpoint of the same event is served meanwhile', async () => {
    const slow = await register(ACCOUNT + 2, { url: `${receiver.base}/slow` });
    const quick = await register(ACCOUNT + 2, { url: `${receiver.base}/ok?quick` });
    await emit(ACCOUNT + 2, { task_id: 'slow-1' });
    await waitUntil(async () => receiver.hanging(), (n) => n > 0, 30_000);
    const served = await waitUntil(() => endpoint(ACCOUNT + 2, quick.body.id), (e) => e?.last_delivery?.state === 'delivered', 30_000);
    expect(served!.last_delivery!.http_status).toBe(200);
    const timedOut = await waitUntil(() => endpoint(ACCOUNT + 2, slow.body.id), (e) => (e?.last_delivery?.error ?? '').startsWith('no answer within'), 30_000);
    expect(timedOut!.last_delivery!.state).toBe('pending');
    expect(timedOut!.last_delivery!.http_status).toBeNull();
    await remove(ACCOUNT + 2, slow.body.id);
  });

  it('an event of a transaction that rolls back is never delivered; one that commits is', async () => {
    const made = await register(ACCOUNT + 3, { url: `${receiver.base}/ok?tx` });
    await expect(
      inTransaction(backend.app.db.pool, async (client) => {
        await recordEvent(client, { accountId: ACCOUNT + 3, type: 'batch_task.finished', data: { task_id: 'rolled-back' } });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    await inTransaction(backend.app.db.pool, (client) => recordEvent(client, { accountId: ACCOUNT + 3, type: 'batch_task.finished', data: { task_id: 'committed' } }));
    await waitUntil(() => endpoint(ACCOUNT + 3, made.body.id), (e) => e?.last_delivery?.state === 'delivered', 30_000);
    const { rows } = await backend.app.db.pool.query(`SELECT body FROM webhook_deliveries WHERE endpoint_id = $1`, [made.body.id]);
    expect(rows.map((r) => JSON.parse(r.body).data.task_id)).toEqual(['committed']);
    expect(receiver.received.some((r) => r.body.includes('rolled-back'))).toBe(false);
  });

  it('an event of a type the endpoint did not subscribe to queues nothing', async () => {
    await register(ACCOUNT + 4, { url: `${receiver.base}/ok`, events: 'custom_training.finished' });
    expect(await emit(ACCOUNT + 4, { task_id: 'unwanted' })).toBe(0);
  });
});
