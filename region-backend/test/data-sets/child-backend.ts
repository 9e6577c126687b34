/**
 * A region backend in a real child process (`src/server.ts` under tsx), called over HTTP with the edge's
 * signature: for crash tests (SIGKILL) and benches. No vitest dependency, so benches can use it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_QUOTAS, newResourceId, SERVICES, signInternal, type ForwardContext } from '@iris/shared';
import { freePort } from '../../src/db/embedded-postgres.js';
import { modelCacheDir } from '../../src/vision/runtime/converted-model.js';
import { serverEntryArgs } from '../../src/util/backend-build.js';

const BACKEND_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHILD_SECRET = 'child-internal-secret-0123456789';

export interface ChildBackend {
  base: string;
  process: ChildProcess;
  call(input: { method: string; url: string; accountId?: number; resourceId?: string; body?: Buffer | string | object; headers?: Record<string, string> }): Promise<{ status: number; json: () => unknown; text: string }>;
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Lines this process has logged that hold `text` (a request id: what the process said about that call). */
  logLines(text: string): string[];
}

/** Attempts at a free port: another process may take the one found before the child binds it. */
const PORT_ATTEMPTS = 3;

export interface ChildBackendOptions {
  databaseUrl: string;
  dataDir: string;
  env?: Record<string, string>;
  /** A fixed port (a load balancer's server address); a free one otherwise. */
  port?: number;
  /** The edge's secret for this region (default CHILD_SECRET). */
  secret?: string;
  /** How long the start may take before it fails (default 60 s). */
  startTimeoutMs?: number;
}

export async function startChildBackend(options: ChildBackendOptions): Promise<ChildBackend> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, options.port ?? (await freePort()));
    } catch (err) {
      if (!(err instanceof PortTakenError) || options.port !== undefined || attempt >= PORT_ATTEMPTS) throw err;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(options: ChildBackendOptions, port: number): Promise<ChildBackend> {
  const secret = options.secret ?? CHILD_SECRET;
  const output: string[] = [];
  const child = spawn(process.execPath, serverEntryArgs(), {
    cwd: BACKEND_DIR,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      INTERNAL_SECRET: secret,
      HOST: '127.0.0.1',
      PORT: String(port),
      IRIS_DATA_DIR: options.dataDir,
      // The model cache of the process that starts it: converted and int8 models are made once, not by every
      // child at its start (where their making would run beside what the test or benchmark measures).
      IRIS_MODEL_CACHE_DIR: modelCacheDir(),
      IRIS_ALLOW_PRIVATE_URLS: '1',
      IRIS_INFERENCE_THREADS: '1',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;

  const until = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) {
      const message = `backend exited during start:\n${output.join('')}`;
      throw /is already in use/.test(message) ? new PortTakenError(message) : new Error(message);
    }
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`backend did not start:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  return {
    base,
    process: child,
    call: (input) => callBackend(base, input, secret),
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    logLines: (text) => output.join('').split('\n').filter((line) => line.includes(text)),
  };
}

/** One call to a backend at `base` signed as the edge signs it (for benches whose load runs in another process). */
export async function callBackend(base: string, input: Parameters<ChildBackend['call']>[0], secret = CHILD_SECRET): ReturnType<ChildBackend['call']> {
  const context: ForwardContext = {
    requestId: newResourceId(16),
    lang: 'en',
    quotas: { ...DEFAULT_QUOTAS },
    services: SERVICES.map((s) => s.id),
    ...(input.resourceId ? { resourceId: input.resourceId } : {}),
  };
  const headers: Record<string, string> = { ...input.headers };
  let body: Buffer | string | undefined;
  if (input.body !== undefined && typeof input.body === 'object' && !Buffer.isBuffer(input.body)) {
    body = JSON.stringify(input.body);
    headers['content-type'] ??= 'application/json';
  } else {
    body = input.body;
  }
  Object.assign(headers, await signInternal(secret, { method: input.method, pathWithQuery: input.url, accountId: input.accountId ?? 1, context, body }));
  const res = await fetch(`${base}${input.url}`, { method: input.method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as unknown };
}

/** A multipart body holding one file part (for callers outside vitest, which cannot import test-app.ts). */
export function fileBody(field: string, filename: string, content: string | Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----iris${newResourceId(12)}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
