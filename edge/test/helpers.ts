/** Helpers for tests that run inside the Workers runtime against the real app and a real local D1. */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { newResourceId, type ForwardContext, type RegionId, type ResourceKind } from '@iris/shared';
import { app } from '../src/app.js';
import { hmacSha1Base64, stringToSign } from '../src/auth/signature.js';
import type { Bindings } from '../src/env.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface CallOptions extends RequestInit {
  host?: string;
  env?: Partial<Bindings>;
}

/** One call through the edge app. `path` may include a query string. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const { host = 'localhost', env: overrides, ...init } = options;
  const ctx = createExecutionContext();
  const res = await app.request(`http://${host}${path}`, init, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export async function callJson<T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<{ status: number; body: T; res: Response }> {
  const res = await call(path, options);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, res };
}

export async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
  return callJson<T>(`/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export interface TestAccount {
  accountId: number;
  keyId: string;
  secret: string;
}

export async function newAccount(options: { signatureRequired?: boolean } = {}): Promise<TestAccount> {
  const account = await admin<{ id: number }>('POST', '/accounts', { name: 'test' });
  const key = await admin<{ key_id: string; secret: string }>('POST', `/accounts/${account.body.id}/keys`, {
    signature_required: options.signatureRequired ?? false,
  });
  return { accountId: account.body.id, keyId: key.body.key_id, secret: key.body.secret };
}

export function keyHeaders(account: TestAccount, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-ca-version': '1', 'x-ca-accesskeyid': account.keyId, ...extra };
}

export interface SignOptions {
  params?: [string, string][];
  jsonBody?: string;
  timestamp?: number;
  nonce?: string;
  requestMethod?: string;
  strip?: boolean;
}

/** Headers of a signed call, computed the way the released clients do. */
export async function signedHeaders(account: TestAccount, options: SignOptions = {}): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'x-ca-accesskeyid': account.keyId,
    'x-ca-version': '1',
    'x-ca-timestamp': String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    'x-ca-signaturenonce': options.nonce ?? newResourceId(32),
    requestmethod: options.requestMethod ?? 'POST',
  };
  const text = stringToSign({ headers, params: options.params ?? [], jsonBody: options.jsonBody ?? null, strip: options.strip });
  return { ...headers, 'x-ca-signature': await hmacSha1Base64(account.secret, text) };
}

/** Registers a resource directly in D1 (as if created earlier). */
export async function seedResource(
  kind: ResourceKind,
  accountId: number,
  options: { region?: RegionId; state?: 'pending' | 'live' | 'deleted'; id?: string; createdAt?: number } = {},
): Promise<string> {
  const id = options.id ?? newResourceId();
  const now = options.createdAt ?? Date.now();
  await env.DB.prepare('INSERT INTO resources (id, kind, account_id, region, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .bind(id, kind, accountId, options.region ?? 'cn-east', options.state ?? 'live', now, now)
    .run();
  return id;
}

export async function resourceRow(id: string): Promise<{ state: string; account_id: number; region: string; kind: string } | null> {
  return env.DB.prepare('SELECT state, account_id, region, kind FROM resources WHERE id = ?').bind(id).first();
}

/** What the fake backend saw (see test/fake-backend.global-setup.ts). */
export interface BackendEcho {
  request_id: string;
  backend: RegionId;
  verified: boolean;
  reason?: string;
  account?: number;
  context?: ForwardContext;
  method: string;
  url: string;
  headers: Record<string, string>;
  body_length: number;
  body_sha256: string;
  /** Empty for bodies over 1 MB (compare length and hash). */
  body_base64: string;
  /** Text fields of a multipart body as busboy reads them (null: busboy fails the body). */
  busboy_fields?: [string, string][] | null;
}

export function echoBytes(echo: BackendEcho): Uint8Array {
  const binary = atob(echo.body_base64);
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

export function echoBody(echo: BackendEcho): string {
  return new TextDecoder().decode(echoBytes(echo));
}

/** Time passes for the isolate caches (their TTL is set per call with `EDGE_CACHE_TTL_MS`). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
