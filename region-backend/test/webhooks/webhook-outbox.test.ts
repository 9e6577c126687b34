/**
 * The outbox's claims: a process that claimed a delivery and died (never recorded an outcome) holds it only
 * until its lease runs out; then another process claims it, and the stale claim can no longer record one.
 */
import { describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domains/webhooks/webhook-event.repo.js';
import { claimDue, markDelivered } from '../../src/domains/webhooks/webhook-delivery.repo.js';
import { testDatabasePool } from '../support/test-database.js';
import { waitUntil } from '../support/wait-for.js';

const pool = testDatabasePool();

describe('delivery claims', () => {
  it('a dead claim expires and another process delivers; the dead one records nothing', async () => {
    await pool().query(`INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES ('ep1', 7, 'https://hooks.example/x', '{batch_task.finished}', 's')`);
    expect(await recordEvent(pool(), { accountId: 7, type: 'batch_task.finished', data: { task_id: 't1' } })).toBe(1);
    const [dead] = await claimDue(pool(), 'dead-process', 10, 300);
    expect(dead).toMatchObject({ attempts: 1, url: 'https://hooks.example/x', secret: 's' });
    expect(await claimDue(pool(), 'other-process', 10, 60_000)).toEqual([]);
    const [taken] = await waitUntil(() => claimDue(pool(), 'other-process', 10, 60_000), (rows) => rows.length === 1, 30_000);
    expect(taken).toMatchObject({ id: dead!.id, attempts: 2, claim: 'other-process' });
    await markDelivered(pool(), dead!, 200);
    expect((await pool().query('SELECT state FROM webhook_deliveries WHERE id = $1', [dead!.id])).rows[0].state).toBe('pending');
    await markDelivered(pool(), taken!, 200);
    expect((await pool().query('SELECT state, http_status FROM webhook_deliveries WHERE id = $1', [dead!.id])).rows[0]).toEqual({ state: 'delivered', http_status: 200 });
  });
});
