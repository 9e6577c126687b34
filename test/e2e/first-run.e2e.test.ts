/**
 * A newcomer's first `npm start`, from a checkout in a private (mode 700) folder, as root and as a normal
 * user: the platform starts and answers through the edge; it restarts a backend that dies; after every one
 * of its processes is killed (a power loss), the next start recovers and keeps the data; Ctrl-C stops it all.
 * A start-up failure is one line naming cause and fix.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../region-backend/src/db/embedded-postgres.js';
import { alive, killQuietly, makePrivateCheckout, npmStart, platformPids, processesIn, waitForOutput, type PrivateCheckout, type RunAs, type StartedPlatform } from './support/private-checkout.js';

const isRoot = process.getuid?.() === 0;
const self: RunAs = { name: os.userInfo().username, uid: process.getuid!(), gid: process.getgid!() };
// As root, a normal user too: `nobody` exists on every Debian/Ubuntu system.
const users: RunAs[] = isRoot ? [self, { name: 'nobody', uid: 65534, gid: 65534 }] : [self];
const START_MS = 240_000;

interface Ports {
  IRIS_EDGE_PORT: string;
  IRIS_BACKEND_PORT_CN_EAST: string;
  IRIS_BACKEND_PORT_AP_SOUTHEAST: string;
}

async function ports(): Promise<Ports> {
  return { IRIS_EDGE_PORT: String(await freePort()), IRIS_BACKEND_PORT_CN_EAST: String(await freePort()), IRIS_BACKEND_PORT_AP_SOUTHEAST: String(await freePort()) };
}

function edgeCall(checkout: PrivateCheckout, p: Ports, url: string, init: RequestInit = {}): Promise<Response> {
  const account = JSON.parse(readFileSync(path.join(checkout.dir, '.iris', 'dev-account.json'), 'utf8')) as { key_id: string };
  return fetch(`http://127.0.0.1:${p.IRIS_EDGE_PORT}${url}`, { ...init, headers: { 'x-ca-version': '1', 'x-ca-accesskeyid': account.key_id, 'content-type': 'application/json', ...init.headers } });
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Ctrl-C: the launcher turns SIGINT into an orderly stop of every child. */
async function stopPlatform(started: StartedPlatform): Promise<number | null> {
  started.launcher.kill('SIGINT');
  return started.exited;
}

describe.each(users)('npm start from a private checkout, as $name', (user) => {
  const checkout = makePrivateCheckout(user);
  // As root the server runs as `postgres` and needs a place it can reach; keep it inside this test's folder.
  const pgRuntime = path.join(path.dirname(checkout.home), 'pg-runtime');
  let started: StartedPlatform | undefined;
  afterAll(async () => {
    if (started && started.launcher.exitCode === null) await stopPlatform(started);
    checkout.remove();
  });

  it('starts, answers through the edge, restarts a killed backend, recovers from a power loss', async () => {
    const p = await ports();
    const env = { ...p, IRIS_EMBEDDED_PG_DIR: pgRuntime };
    started = npmStart(checkout, env);
    await waitForOutput(started, 'Iris is running.', START_MS);
    expect(started.output()).not.toMatch(/EACCES|cannot start|^\s+at /m);

    const created = await edgeCall(checkout, p, '/image_sets/_0000014', { method: 'POST', body: JSON.stringify({ name: 'first run' }) });
    expect(created.status).toBe(200);
    const set = (await created.json()) as { id: string; name: string };
    expect(set.name).toBe('first run');

    // The supervisor restarts a backend that dies.
    const before = platformPids(checkout).children['backend-cn-east']!;
    killQuietly(-before, 'SIGKILL');
    await waitForOutput(started, 'backend-cn-east was killed by SIGKILL', 30_000);
    const after = await waitUntil('backend restarted', async () => {
      const pid = platformPids(checkout).children['backend-cn-east'];
      return pid !== undefined && pid !== before && (await fetch(`http://127.0.0.1:${p.IRIS_BACKEND_PORT_CN_EAST}/healthz`)).ok ? pid : undefined;
    });
    expect(alive(after)).toBe(true);
    expect((await edgeCall(checkout, p, `/image_sets/_0000014/${set.id}`)).status).toBe(200);

    // Power loss: every process of the platform dies at once, PostgreSQL included.
    const pids = platformPids(checkout);
    const pgData = readFileSync(path.join(checkout.dir, '.iris', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[1]!;
    const victims = [started.launcher.pid!, pids.supervisor, ...processesIn(pgData)];
    for (const pid of Object.values(pids.children)) killQuietly(-pid, 'SIGKILL');
    killQuietly(-pids.supervisor, 'SIGKILL');
    for (const pid of victims) killQuietly(pid, 'SIGKILL');
    await started.exited;
    await waitUntil('all processes gone', async () => (victims.every((pid) => !alive(pid)) && processesIn(pgData).length === 0 ? true : undefined), 10_000);

    // The first start after the crash recovers, with the data.
    started = npmStart(checkout, env);
    await waitForOutput(started, 'Iris is running.', START_MS);
    expect(started.output()).toMatch(/recovering after a crash: removed a stale postmaster\.pid/);
    const again = await edgeCall(checkout, p, `/image_sets/_0000014/${set.id}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { name: string }).name).toBe('first run');

    // Ctrl-C stops everything.
    const children = platformPids(checkout);
    expect(await stopPlatform(started)).toBe(0);
    expect(started.output()).toContain('[iris] stopped');
    for (const pid of [children.supervisor, ...Object.values(children.children)]) expect(alive(pid)).toBe(false);
    expect(processesIn(pgData)).toEqual([]);
  }, 900_000);

  it('says in one line why it cannot start: a port already in use, a bad port number', async () => {
    // Its own data directory: a failed first test may leave its platform running on the checkout's.
    const p = { ...(await ports()), IRIS_DATA_DIR: path.join(checkout.home, 'errors-data') };
    const holder = net.createServer().listen(Number(p.IRIS_BACKEND_PORT_AP_SOUTHEAST), '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    try {
      const busy = npmStart(checkout, { ...p, IRIS_EMBEDDED_PG_DIR: pgRuntime });
      expect(await busy.exited).toBe(1);
      const lines = busy.output().trim().split('\n');
      expect(lines).toEqual([`[iris] cannot start: port ${p.IRIS_BACKEND_PORT_AP_SOUTHEAST} (backend ap-southeast) is already in use on 127.0.0.1: stop the program holding it (\`ss -ltnp 'sport = :${p.IRIS_BACKEND_PORT_AP_SOUTHEAST}'\` shows it) or set IRIS_BACKEND_PORT_AP_SOUTHEAST to a free port`]);
    } finally {
      holder.close();
    }
    const bad = npmStart(checkout, { ...p, IRIS_EDGE_PORT: 'eighty' });
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim().split('\n')).toEqual(['[iris] cannot start: IRIS_EDGE_PORT=eighty is not a port number: set it to a free port between 1024 and 65535']);
  }, 120_000);
});
