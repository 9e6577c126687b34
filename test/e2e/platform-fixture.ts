/** Starts the whole platform for one test file on free ports, in a temporary data directory (see shared-platform.ts for the one files share). */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { answerBody, checkAnswer, createApiClient, findOperation, type ApiClient } from '@iris/shared/client';
import { freePort } from '../../region-backend/src/db/embedded-postgres.js';
import { startPlatform, type Platform, type PlatformOptions } from '../../scripts/platform.js';
import { modelCacheDir } from '../../region-backend/src/vision/runtime/converted-model.js';

export interface PlatformFixture extends Platform {
  dataDir: string;
  /** Calls the edge with the development account's key; an answer off the contract fails the test. */
  call(pathAndQuery: string, init?: RequestInit & { host?: string; keyId?: string }): Promise<Response>;
  admin(method: string, url: string, body?: unknown): Promise<Record<string, unknown>>;
  /** The contract's typed client with the development account's key. */
  api: ApiClient;
}

export interface FixtureOptions {
  env?: Record<string, string>;
  externalBackends?: PlatformOptions['externalBackends'];
  prepare?: (dataDir: string) => Promise<void>;
}

/**
 * Checks an answer of the edge against the contract (success schema, or the error shape of its family)
 * when the call is a contract operation; the test fails with a ContractViolation otherwise.
 */
export async function checkedAnswer(method: string, pathAndQuery: string, res: Response): Promise<Response> {
  const operation = findOperation(method, pathAndQuery);
  if (!operation || res.status === 304) return res;
  checkAnswer(operation, res.status, answerBody(await res.clone().text()), { exact: true });
  return res;
}

function requestWithHost(url: URL, host: string, method: string, headers: Headers, body?: string | Buffer): Promise<Response> {
  return new Promise((resolve, reject) => {
    const outgoing: Record<string, string> = { host };
    headers.forEach((value, key) => (outgoing[key] = value));
    const req = http.request(url, { method, headers: outgoing }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(key, value);
        const status = res.statusCode ?? 500;
        resolve(new Response(status === 204 ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `env` adds backend settings (limits, time limits) on top of the test defaults; `externalBackends` serves a
 * region from backends the test starts itself (see PlatformOptions); `prepare` fills the new data directory
 * before the platform first starts.
 */
export async function startPlatformFixture(options: FixtureOptions = {}): Promise<PlatformFixture> {
  // A port found free can be taken by another program before the platform binds it; such a start is tried
  // again on fresh ports (any other failure is the test's).
  for (let attempt = 1; ; attempt++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-e2e-'));
    try {
      return fixtureOf(await startOnFreePorts(dataDir, options), dataDir);
    } catch (err) {
      rmSync(dataDir, { recursive: true, force: true });
      if (attempt >= PORT_ATTEMPTS || !/already in use/.test((err as Error).message)) throw err;
    }
  }
}

const PORT_ATTEMPTS = 3;

async function startOnFreePorts(dataDir: string, options: FixtureOptions): Promise<Platform> {
  // Open to the `postgres` user (the server's user when tests run as root), so its data stays in this folder.
  chmodSync(dataDir, 0o755);
  // Data put in place before the first start (a restore).
  await options.prepare?.(dataDir);
  return startPlatform({
    dataDir,
    edgePort: await freePort(),
    backendPorts: { 'cn-east': await freePort(), 'ap-southeast': await freePort() },
    allowPrivateUrls: true,
    stdio: 'logs',
    // The converted and int8 models of the test run's cache: made once, not by each platform's backends at their
    // start (first-run.e2e.test.ts starts from an empty cache, as a newcomer does).
    env: { IRIS_INFERENCE_THREADS: '1', LOG_LEVEL: 'warn', IRIS_STRICT_CONTRACT: '1', IRIS_MODEL_CACHE_DIR: modelCacheDir(), ...options.env },
    externalBackends: options.externalBackends,
  });
}

export function fixtureOf(platform: Platform, dataDir: string): PlatformFixture {
  return {
    ...platform,
    dataDir,
    api: createApiClient({ baseUrl: platform.edgeUrl, exact: true, headers: () => ({ 'x-ca-accesskeyid': platform.devAccount.key_id, 'x-ca-version': '1' }) }),
    call: async (pathAndQuery, init = {}) => {
      const { host, keyId, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (!headers.has('x-ca-accesskeyid')) headers.set('x-ca-accesskeyid', keyId ?? platform.devAccount.key_id);
      if (!headers.has('x-ca-version')) headers.set('x-ca-version', '1');
      const url = new URL(pathAndQuery, platform.edgeUrl);
      // Region routing is by Host header; fetch() always sends the URL's host, so use node:http for others.
      const method = rest.method ?? 'GET';
      const res = host ? await requestWithHost(url, `${host}:${url.port}`, method, headers, rest.body as string | Buffer | undefined) : await fetch(url, { ...rest, headers });
      return checkedAnswer(method, url.pathname, res);
    },
    admin: async (method, url, body) => {
      const res = await fetch(`${platform.edgeUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      const operation = findOperation(method, url);
      if (!operation) throw new Error(`admin ${method} ${url} is not an operation of the contract`);
      checkAnswer(operation, res.status, answerBody(text), { exact: true });
      if (!res.ok) throw new Error(`admin ${method} ${url}: ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    },
    stop: async () => {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
