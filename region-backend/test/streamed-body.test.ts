/**
 * Bodies the edge streams: bound by their signed length and the single-use nonce (no hash). A body that ends
 * short of that length, runs past it (even in its first chunk, before a handler reads it), or whose connection
 * drops midway is refused, and the call stores nothing, even when the closing delimiter had already arrived.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId, signInternal, type ForwardContext } from '@iris/shared';
import { multipart, startTestBackend, TEST_SECRET, type TestBackend } from './support/test-app.js';
import { waitUntil } from './support/wait-for.js';

const URL_PATH = '/bad_cases/_0000204';

describe('streamed bodies (length-bound)', () => {
  let backend: TestBackend;
  let db: pg.Client;
  beforeAll(async () => {
    backend = await startTestBackend();
    db = new pg.Client({ connectionString: backend.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await backend?.close();
  });

  async function headersFor(accountId: number, length: number): Promise<Record<string, string>> {
    const context: ForwardContext = { requestId: newResourceId(16), lang: 'en' };
    return signInternal(TEST_SECRET, { method: 'POST', pathWithQuery: URL_PATH, accountId, context, body: { length } });
  }

  async function stored(accountId: number): Promise<number> {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM bad_cases WHERE account_id = $1', [accountId]);
    return rows[0].n as number;
  }

  /** A bad-case report with a 300 KB file part and an epilogue after the closing delimiter. */
  function report(requestId: string) {
    const mp = multipart({ service_id: '_0000049', request_id: requestId, image: { filename: 'a.jpg', content: Buffer.alloc(300_000, 7) } });
    const epilogue = Buffer.alloc(20_000, 0x61);
    return { body: Buffer.concat([mp.payload, epilogue]), closingEnd: mp.payload.length, headers: mp.headers };
  }

  it('accepts a streamed body of exactly its signed length', async () => {
    const { body, headers } = report('exact');
    const res = await backend.app.inject({ method: 'POST', url: URL_PATH, payload: body, headers: { ...headers, ...(await headersFor(71, body.length)) } });
    expect(res.statusCode).toBe(200);
    expect(await stored(71)).toBe(1);
  });

  it('refuses a body that ends short of its signed length after the closing delimiter, and stores nothing', async () => {
    const { body, closingEnd, headers } = report('short');
    const cut = body.subarray(0, closingEnd + 100);
    const res = await backend.app.inject({ method: 'POST', url: URL_PATH, payload: cut, headers: { ...headers, ...(await headersFor(72, body.length)) } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error_code: 9004 });
    expect(await stored(72)).toBe(0);
  });

  it('refuses a body longer than its signed length, and stores nothing', async () => {
    const { body, closingEnd, headers } = report('long');
    const res = await backend.app.inject({ method: 'POST', url: URL_PATH, payload: body, headers: { ...headers, ...(await headersFor(73, closingEnd)) } });
    expect(res.statusCode).toBe(401);
    expect(await stored(73)).toBe(0);
  });

  it('stores nothing when the connection drops midway (the edge aborting a refused upload)', async () => {
    const address = await backend.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (backend.app.server.address() as AddressInfo).port;
    expect(address).toContain(String(port));
    const { body, closingEnd, headers } = report('aborted');
    const signed = await headersFor(74, body.length);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = [`POST ${URL_PATH} HTTP/1.1`, 'host: 127.0.0.1', `content-length: ${body.length}`, ...Object.entries({ ...headers, ...signed }).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
    socket.write(head);
    // Everything up to and past the closing delimiter, but not the whole signed length.
    socket.write(body.subarray(0, closingEnd + 10));
    // Dropped once the backend is reading it (its upload slot is taken)...
    await waitUntil(async () => backend.app.uploadSlots.inFlight('74'), (n) => n === 1, 30_000);
    socket.destroy();
    // ...and asserted once the backend has ended the call.
    await waitUntil(async () => backend.app.uploadSlots.inFlight('74'), (n) => n === 0, 30_000);
    expect(await stored(74)).toBe(0);
    // The same backend still serves the next call.
    const next = report('after');
    const ok = await backend.app.inject({ method: 'POST', url: URL_PATH, payload: next.body, headers: { ...next.headers, ...(await headersFor(74, next.body.length)) } });
    expect(ok.statusCode).toBe(200);
    expect(await stored(74)).toBe(1);
  });
});
