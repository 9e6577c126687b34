/**
 * Builds a real backend (real PostgreSQL database, real worker threads, real pg-boss) for a test file and
 * calls it the way the edge does: with a valid internal signature.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { newResourceId, signInternal, DEFAULT_QUOTAS, SERVICES, type ForwardContext, type Lang, type Quotas } from '@iris/shared';
import { buildApp } from '../../src/app.js';
import { loadConfig, type BackendConfig } from '../../src/config.js';
import { createTestDatabase } from './test-database.js';

export const TEST_SECRET = 'test-internal-secret-0123456789';

export interface TestBackend {
  app: FastifyInstance;
  config: BackendConfig;
  databaseUrl: string;
  call(input: CallInput): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface CallInput {
  method: string;
  url: string;
  accountId?: number;
  lang?: Lang;
  resourceId?: string;
  quotas?: Quotas;
  /** Ready-made services the edge says the account may run (default: the whole catalogue). */
  services?: string[];
  /** Body fields the edge says it read and checked. */
  fields?: Record<string, string>;
  /** Public base address of the region the call came through. */
  publicBase?: string;
  headers?: Record<string, string>;
  payload?: string | Buffer | object;
}

export async function startTestBackend(env: Record<string, string> = {}, options: { workers?: boolean } = {}): Promise<TestBackend> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-test-data-'));
  const config = loadConfig({
    // Tests tune domain settings through process.env; the backend reads it once, here.
    ...process.env,
    DATABASE_URL: database.url,
    INTERNAL_SECRET: TEST_SECRET,
    IRIS_DATA_DIR: dataDir,
    IRIS_ALLOW_PRIVATE_URLS: '1',
    IRIS_INFERENCE_THREADS: '1',
    LOG_LEVEL: 'warn',
    IRIS_METRICS_PORT: 'off',
    // No supervisor restarts a test runner: the watchdog is tested on its own process (loop-watchdog.test.ts).
    IRIS_WATCHDOG_MS: '0',
    // A refusal with a code its operation does not declare fails the test that meets it.
    IRIS_STRICT_CONTRACT: '1',
    ...env,
  });
  const app = await buildApp(config, { workers: options.workers ?? true, logger: false });
  await app.ready();
  return {
    app,
    config,
    databaseUrl: database.url,
    call: (input) => callSigned(app, input),
    close: async () => {
      await app.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sends a request through `inject` with the headers the edge would add. */
export async function callSigned(app: FastifyInstance, input: CallInput): Promise<LightMyRequestResponse> {
  const context: ForwardContext = {
    requestId: newResourceId(16),
    lang: input.lang ?? 'en',
    quotas: input.quotas ?? { ...DEFAULT_QUOTAS },
    services: input.services ?? SERVICES.map((s) => s.id),
    ...(input.fields ? { fields: input.fields } : {}),
    ...(input.publicBase ? { publicBase: input.publicBase } : {}),
    ...(input.resourceId ? { resourceId: input.resourceId } : {}),
  };
  const headers: Record<string, string> = { ...input.headers };
  let payload = input.payload;
  if (payload !== undefined && typeof payload === 'object' && !Buffer.isBuffer(payload)) {
    payload = JSON.stringify(payload);
    headers['content-type'] ??= 'application/json';
  }
  const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined;
  Object.assign(headers, await signInternal(TEST_SECRET, { method: input.method, pathWithQuery: input.url, accountId: input.accountId ?? 1, context, body }));
  return app.inject({ method: input.method as 'GET', url: input.url, headers, ...(payload !== undefined ? { payload } : {}) });
}

/** A multipart body with text fields and files, for `payload` + `content-type`. */
export function multipart(parts: Record<string, string | { filename: string; content: Buffer | string; contentType?: string }>): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----iris${newResourceId(12)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.contentType ?? 'application/octet-stream'}\r\n\r\n`));
      chunks.push(Buffer.isBuffer(value.content) ? value.content : Buffer.from(value.content));
      chunks.push(Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
