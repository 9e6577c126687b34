import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsResolver } from '../../images/dns-resolver.js';
import { sendWebhook } from './webhook-sender.js';

let server: http.Server;
let base: string;
let hits = 0;
let dir: string;
// A real resolver whose hosts file names a private and a loopback address.
let resolve: ReturnType<typeof createDnsResolver>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/redirect') res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    else if (req.url === '/huge') res.writeHead(200).end(Buffer.alloc(4 * 1024 * 1024));
    else res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(os.tmpdir(), 'iris-webhook-hosts-'));
  writeFileSync(path.join(dir, 'hosts'), '10.1.2.3 hooks.internal.test\n127.0.0.1 hooks.loopback.test\n');
  resolve = createDnsResolver({ timeoutMs: 2000, hostsFile: path.join(dir, 'hosts') });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const send = (url: string, allowLoopback = true) => sendWebhook(url, '{"id":"evt_1"}', { 'iris-event': 'batch_task.finished' }, { timeoutMs: 5000, resolve, allowLoopback });

describe('one delivery attempt', () => {
  it('refuses an endpoint whose name resolves to a private address, before connecting', async () => {
    const outcome = await send('https://hooks.internal.test/hook');
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/not allowed: it points to a private/);
    expect(outcome.error).not.toContain('10.1.2.3');
  });

  it('refuses loopback and http without the allowance, and delivers with it', async () => {
    const before = hits;
    expect((await send(`${base}/hook`, false)).error).toMatch(/must use https/);
    expect((await send('https://hooks.loopback.test:1/hook', false)).error).toMatch(/not allowed/);
    expect(hits).toBe(before);
    expect(await send(`${base}/hook`)).toEqual({ ok: true, httpStatus: 204, error: null });
    // Over http only a loopback literal or `localhost`: a name of the hosts file that points to loopback needs https.
    expect((await send(`http://hooks.loopback.test:${new URL(base).port}/hook`)).error).toMatch(/http is allowed on loopback only/);
    expect(await send(`http://localhost:${new URL(base).port}/hook`)).toMatchObject({ ok: true, httpStatus: 204 });
  });

  it('does not follow a redirect, and reads a huge answer only up to its bound', async () => {
    expect(await send(`${base}/redirect`)).toEqual({ ok: false, httpStatus: 302, error: 'the endpoint answered HTTP 302 (redirects are not followed)' });
    expect(await send(`${base}/huge`)).toMatchObject({ ok: true, httpStatus: 200 });
  });
});
