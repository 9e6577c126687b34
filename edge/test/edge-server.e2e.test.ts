/**
 * The edge as `npm start` runs it: the deploy bundle on workerd (`scripts/edge-server.ts`) with a migrated
 * local D1, in front of two loopback backends. Covers what the Workers test pool cannot reach: GET requests
 * with a body arriving over real HTTP, response compression by the runtime, and the admin CLI as a separate
 * process.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeServer, type EdgeServerProcess } from './edge-server-process.js';
import { SECRETS, startFakeBackends, type FakeBackends } from './fake-backend.global-setup.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN = randomBytes(16).toString('hex');

let backends: FakeBackends;
let edge: EdgeServerProcess | undefined;
let port: number;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** node:http, because fetch refuses a GET with a body. */
function raw(method: string, target: string, headers: Record<string, string>, body?: string, host?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: '127.0.0.1', port, method, path: target, headers: { ...headers, ...length, ...(host ? { host } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs the admin CLI without blocking this process: the fake backends live in it, and the edge calls them
 * during some commands (revocations, health probes).
 */
function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; json: Record<string, unknown> | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/src/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, IRIS_EDGE_URL: `http://127.0.0.1:${port}`, IRIS_ADMIN_TOKEN: ADMIN, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, json: stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : null, stderr }));
  });
}

beforeAll(async () => {
  backends = await startFakeBackends();
  port = await freePort();
  edge = await startEdgeServer({
    port,
    admin: ADMIN,
    vars: {
      ADMIN_TOKEN: ADMIN,
      BACKEND_URL_CN_EAST: backends.urls['cn-east'],
      BACKEND_URL_AP_SOUTHEAST: backends.urls['ap-southeast'],
      INTERNAL_SECRET_CN_EAST: SECRETS['cn-east'],
      INTERNAL_SECRET_AP_SOUTHEAST: SECRETS['ap-southeast'],
      SECRETS_MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    },
  });
});

afterAll(async () => {
  await edge?.stop();
  await backends?.close();
});

describe('the edge on workerd, and the admin CLI against it', () => {
  it('manages accounts, keys, quotas and grants, with exit codes', async () => {
    const account = await cli(['accounts', 'create', 'cli test']);
    expect(account.code).toBe(0);
    const id = String(account.json!.id);
    const key = await cli(['keys', 'create', id, '--key-id', 'clikey0001', '--secret', 'cli-secret-1']);
    expect(key.json).toMatchObject({ key_id: 'clikey0001', secret: 'cli-secret-1', enabled: true });
    // A known key id is a conflict: the secret is shown only when the key is created.
    const again = await cli(['keys', 'create', id, '--key-id', 'clikey0001']);
    expect(again.code).toBe(1);
    expect(JSON.stringify(again.json ?? {}) + again.stderr).not.toContain('cli-secret-1');
    expect(((await cli(['keys', 'list', id])).json!.results as unknown[]).length).toBe(1);
    expect((await cli(['quotas', 'set', id, '--image-sets', '3', '--daily-batch-tasks', 'default'])).json).toMatchObject({ image_sets: 3, daily_batch_tasks: 100 });
    await cli(['grants', 'remove', id, '_0000024', '_0000039']);
    const grants = (await cli(['grants', 'list', id])).json!.results as { service_id: string; granted: boolean }[];
    expect(grants.filter((g) => !g.granted).map((g) => g.service_id)).toEqual(['_0000039', '_0000024']);
    expect((await cli(['keys', 'signature', 'clikey0001', 'on'])).json).toMatchObject({ signature_required: true });
    expect((await cli(['accounts', 'disable', id])).json).toMatchObject({ disabled: true });
    expect((await cli(['accounts', 'list'])).json!.results).toContainEqual(expect.objectContaining({ id: Number(id), disabled: true }));

    expect((await cli(['accounts', 'show', '99999'])).code).toBe(1);
    expect((await cli(['accounts', 'frobnicate'])).code).toBe(2);
    expect((await cli(['quotas', 'set', id, '--image-sets', 'many'])).code).toBe(2);
    expect((await cli(['health'], { IRIS_EDGE_URL: 'http://127.0.0.1:1' })).code).toBe(3);
    expect((await cli(['health'], { IRIS_ADMIN_TOKEN: 'wrong' })).code).toBe(1);

    const tokenDir = mkdtempSync(path.join(os.tmpdir(), 'iris-cli-token-'));
    writeFileSync(path.join(tokenDir, 'admin-token'), `${ADMIN}\n`);
    // Health now probes each backend's /readyz (3 s limit): the answer is ok or degraded, with D1 checked either way.
    expect((await cli(['health'], { IRIS_ADMIN_TOKEN: '', IRIS_DATA_DIR: tokenDir })).json).toMatchObject({ d1: 'ok', regions: { 'cn-east': { backend_configured: true } } });
    rmSync(tokenDir, { recursive: true, force: true });
  });
});

describe('public API over real HTTP', () => {
  it('forwards a signed GET with a form body to the region of the Host header, and never compresses', async () => {
    const account = (await cli(['accounts', 'create', 'http test'])).json!;
    await cli(['keys', 'create', String(account.id), '--key-id', 'httpkey0001', '--secret', 'http-secret']);
    const signedHeaders: Record<string, string> = {
      'x-ca-accesskeyid': 'httpkey0001',
      'x-ca-version': '1.0',
      'x-ca-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-ca-signaturenonce': randomBytes(16).toString('hex'),
      requestmethod: 'POST',
    };
    const all: Record<string, string> = { ...signedHeaders, service_id: '_0000049', page: '2' };
    const text = Object.keys(all).sort().map((k) => `${k}=${all[k]}`).join('&');
    const headers = {
      ...signedHeaders,
      'x-ca-signature': createHmac('sha1', 'http-secret').update(text).digest('base64'),
      'content-type': 'application/x-www-form-urlencoded',
      'accept-encoding': 'gzip, deflate',
    };
    const res = await raw('GET', '/batch/_1000001/services/?page=2', headers, 'service_id=_0000049', `ap-southeast.localhost:${port}`);
    expect(res.status, res.body.toString()).toBe(200);
    expect(res.headers['content-encoding']).toBe('identity');
    const echo = JSON.parse(res.body.toString('utf8')) as { backend: string; verified: boolean; method: string; url: string; body_base64: string; account: number };
    expect(echo).toMatchObject({ backend: 'ap-southeast', verified: true, method: 'GET', url: '/batch/_1000001/services?page=2', account: account.id });
    expect(Buffer.from(echo.body_base64, 'base64').toString()).toBe('service_id=_0000049');

    const replay = await raw('GET', '/batch/_1000001/services/?page=2', headers, 'service_id=_0000049');
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.body.toString())).toMatchObject({ is_error: 1, data: { error_code: 1106 } });
  });
});
