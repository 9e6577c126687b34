/**
 * Webhooks through the edge: an account registers an endpoint (a real HTTP receiver on loopback), a batch
 * task of its finishes, and the receiver gets one signed `batch_task.finished` delivery that the endpoint's
 * list then shows as delivered. Another account sees none of it.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformFixture } from './platform-fixture.js';
import { sharedPlatformFixture } from './shared-platform.js';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('webhooks end to end: edge → backend → outbox → receiver', () => {
  let platform: PlatformFixture;
  let receiver: http.Server;
  let receiverUrl: string;
  const deliveries: Delivery[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/iris-events`;
    platform = await sharedPlatformFixture('webhooks');
  });
  afterAll(async () => {
    await platform?.stop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('a batch task finishing produces one signed delivery, shown as delivered', async () => {
    const json = { 'content-type': 'application/json' };
    const registered = await platform.call('/iris/webhooks', { method: 'POST', headers: json, body: JSON.stringify({ url: receiverUrl, events: ['batch_task.finished'] }) });
    expect(registered.status).toBe(200);
    const endpoint = (await registered.json()) as { id: string; secret: string };

    const other = await platform.admin('POST', '/admin/accounts', { name: 'webhook-stranger' });
    const otherKey = String((await platform.admin('POST', `/admin/accounts/${other.id}/keys`, {})).key_id);
    expect(((await (await platform.call('/iris/webhooks', { keyId: otherKey })).json()) as { results: unknown[] }).results).toEqual([]);
    expect((await platform.call(`/iris/webhooks/${endpoint.id}`, { method: 'DELETE', keyId: otherKey })).status).toBe(404);

    // Two lines (a task needs two) whose downloads fail at once: the task still finishes.
    const body = new FormData();
    body.append('service_id', '_0000059');
    body.append('urls', new Blob(['http://127.0.0.1:9/a.jpg\nhttp://127.0.0.1:9/b.jpg\n'], { type: 'text/plain' }), 'urls.txt');
    const prepared = (await (await platform.call('/batch/_1000001/task/prepare', { method: 'POST', body })).json()) as { data: { task_id: string } };
    const taskId = prepared.data.task_id;
    expect(taskId, JSON.stringify(prepared)).toBeTruthy();
    const applied = await platform.call('/batch/_1000001/task/apply', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `task_id=${taskId}` });
    expect(applied.status, await applied.clone().text()).toBe(200);

    await expect.poll(() => deliveries.length, { timeout: 180_000, interval: 250 }).toBeGreaterThan(0);
    const got = deliveries[0]!;
    const event = JSON.parse(got.body) as { id: string; type: string; data: { task_id: string; state: string; total: number } };
    expect(event).toMatchObject({ type: 'batch_task.finished', data: { task_id: taskId, total: 2 } });
    expect(['SUCCESS', 'FAILURE']).toContain(event.data.state);
    const { t, v1 } = Object.fromEntries(String(got.headers['iris-signature']).split(',').map((kv) => kv.split('='))) as { t: string; v1: string };
    expect(v1).toBe(createHmac('sha256', endpoint.secret).update(`${t}.${got.body}`).digest('hex'));
    expect(got.headers['iris-delivery']).toBe(event.id);

    const state = async () => {
      const listed = (await (await platform.call('/iris/webhooks')).json()) as { results: { id: string; last_delivery: { state: string; http_status: number | null } | null }[] };
      return listed.results.find((e) => e.id === endpoint.id)?.last_delivery;
    };
    await expect.poll(state, { timeout: 60_000, interval: 250 }).toMatchObject({ state: 'delivered', http_status: 200 });
    expect(deliveries).toHaveLength(1);
    expect((await platform.call(`/iris/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});
