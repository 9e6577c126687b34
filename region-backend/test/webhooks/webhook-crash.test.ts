/**
 * A backend process killed (SIGKILL) while it waits for a receiver's answer loses no delivery: its claim runs
 * out and another process on the same database delivers the event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domains/webhooks/webhook-event.repo.js';
import { startCrashHarness, type CrashHarness } from '../support/crash-harness.js';
import { waitUntil } from '../support/wait-for.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

const env = { IRIS_WEBHOOK_ALLOW_LOOPBACK: '1', IRIS_WEBHOOK_POLL_MS: '100', IRIS_WEBHOOK_TIMEOUT_MS: '3000' };

let harness: CrashHarness;
let receiver: Receiver;
beforeAll(async () => {
  harness = await startCrashHarness('webhook-crash');
  receiver = await startReceiver();
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

describe('a process killed mid-delivery', () => {
  it('leaves the delivery to another process, which delivers it', async () => {
    const first = await harness.startBackend(env);
    const registered = await first.call({ method: 'POST', url: '/iris/webhooks', accountId: 3, body: { url: `${receiver.base}/hang-once` } });
    expect(registered.status).toBe(200);
    await recordEvent(harness.pool, { accountId: 3, type: 'batch_task.finished', data: { task_id: 'killed-mid-delivery' } });
    await waitUntil(async () => receiver.hanging(), (n) => n === 1, 60_000);
    await first.kill('SIGKILL');

    await harness.startBackend(env);
    const state = () => harness.pool.query<{ state: string; attempts: number; http_status: number | null }>('SELECT state, attempts, http_status FROM webhook_deliveries').then((r) => r.rows);
    const [delivered] = await waitUntil(state, (rows) => rows[0]?.state === 'delivered', 90_000);
    expect(delivered).toEqual({ state: 'delivered', attempts: 2, http_status: 200 });
    const bodies = receiver.received.filter((r) => r.path === '/hang-once').map((r) => r.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
  }, 240_000);
});
