/**
 * The edge's workerd under sustained traffic (docs/edge.md, "Local runtime"): every call passes through several
 * Worker isolates (Miniflare's entry Worker, the static-assets router and its helpers, the edge), and each keeps
 * the garbage of the calls it served until V8 collects it. With V8's defaults a workerd isolate lets its young
 * generation grow to 16 MB semi-spaces and its old generation to hundreds of MB before the first full collection,
 * so the process grew by hundreds of MB before levelling off; `scripts/edge-server.ts` gives workerd V8 flags
 * that collect early. The heaps are read over the inspector protocol, without forcing a collection.
 *
 * The calls carry unknown access key ids: the edge answers them alone (401, then 429 once the address has used
 * up its failed authentications), so no backend is involved and the calls are cheap.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { fetch as miniflareFetch } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../region-backend/src/db/embedded-postgres.js';
import { startEdgeServer, type EdgeServerProcess } from './edge-server-process.js';

const ADMIN = randomBytes(16).toString('hex');
const CALLS = 6000;
const IN_FLIGHT = 4;
/** Heap (V8 `totalSize`) an isolate may hold after the calls; with V8's defaults the edge's reached 25 MB after these calls, with the flags 12–15. */
const HEAP_BOUND_MB = 20;

let edge: EdgeServerProcess | undefined;
let port: number;
let inspectorPort: number;

interface HeapUsage {
  usedSize: number;
  totalSize: number;
}

/** `Runtime.getHeapUsage` of one isolate over the Chrome DevTools protocol. */
async function heapUsage(webSocketUrl: string): Promise<HeapUsage> {
  const res = await miniflareFetch(webSocketUrl.replace(/^ws:/, 'http:'), { headers: { upgrade: 'websocket' } });
  const socket = res.webSocket;
  if (!socket) throw new Error(`no inspector WebSocket at ${webSocketUrl} (${res.status})`);
  socket.accept();
  const answer = new Promise<HeapUsage>((resolve) => {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: HeapUsage };
      if (message.id === 1 && message.result) resolve(message.result);
    });
  });
  socket.send(JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }));
  try {
    return await answer;
  } finally {
    socket.close();
  }
}

function get(agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'x-ca-accesskeyid': `ak${randomBytes(11).toString('hex')}`, 'x-ca-version': '1' };
    http
      .get({ host: '127.0.0.1', port, path: '/get_image_sets/_0000014', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

beforeAll(async () => {
  port = await freePort();
  inspectorPort = await freePort();
  // Unreachable backends: these calls never need one.
  edge = await startEdgeServer({
    port,
    admin: ADMIN,
    inspectorPort,
    vars: { ADMIN_TOKEN: ADMIN, BACKEND_URL_CN_EAST: 'http://127.0.0.1:1', BACKEND_URL_AP_SOUTHEAST: 'http://127.0.0.1:1', INTERNAL_SECRET_CN_EAST: 'memory-test-cn', INTERNAL_SECRET_AP_SOUTHEAST: 'memory-test-ap', SECRETS_MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=' },
  });
});

afterAll(async () => {
  await edge?.stop();
});

describe('the edge on workerd under sustained traffic', () => {
  it('keeps the heap of every isolate a call passes through small', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const statuses = new Map<number, number>();
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < CALLS) {
          sent++;
          const status = await get(agent);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    agent.destroy();
    // Refused by the edge itself: unknown key, then too many failed authentications from this address.
    expect([...statuses.keys()].sort()).toEqual([401, 429]);

    const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as { title: string; webSocketDebuggerUrl: string }[];
    expect(targets.map((t) => t.title)).toContainEqual(expect.stringContaining('iris-edge'));
    const heaps: Record<string, number> = {};
    for (const target of targets) heaps[target.title] = Math.round((await heapUsage(target.webSocketDebuggerUrl)).totalSize / 1e5) / 10;
    console.log(`V8 heap (totalSize, MB) of each isolate after ${CALLS} calls: ${JSON.stringify(heaps)}`);
    for (const [title, mb] of Object.entries(heaps)) expect(mb, title).toBeLessThanOrEqual(HEAP_BOUND_MB);
  });
});
