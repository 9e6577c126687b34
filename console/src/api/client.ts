/**
 * Every call of the console goes through the public API of the region that served it (same origin), with
 * the signed-in access key's headers, or through the admin API with the operator's token: the console has
 * no powers of its own. Every answer of a contract operation is checked against the contract (its response
 * schema, or the error shape of its family): an answer off the contract is an error, never silently shown.
 */
import type * as ContractClient from '@iris/shared/client';
import { session, type Lang } from '../session.js';

/** The contract's check, in its own chunk loaded on the first call: the first load stays small. */
let contract: Promise<typeof ContractClient> | undefined;

async function checkContract(method: string, path: string, status: number, body: unknown): Promise<void> {
  contract ??= import('@iris/shared/client');
  const { checkAnswer, findOperation } = await contract;
  const operation = findOperation(method, path);
  if (operation && status !== 304) checkAnswer(operation, status, body);
}

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | string | undefined,
    message: string,
  ) {
    super(message);
  }
}

let currentLang: Lang = 'en';
export function setApiLang(lang: Lang): void {
  currentLang = lang;
}

type Fields = Record<string, unknown>;

export type Body = FormData | Record<string, unknown> | undefined;

function errorFrom(status: number, body: unknown): ApiCallError {
  const b = (body ?? {}) as Fields;
  const inner = (b.data && typeof b.data === 'object' ? b.data : b) as Fields;
  const code = (inner.error_code ?? b.error_code) as number | string | undefined;
  const message = inner.message ?? inner.msg ?? b.message ?? `HTTP ${status}`;
  return new ApiCallError(status, code, String(message));
}

async function send(path: string, method: string, headers: Headers, body: Body): Promise<Response> {
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers.set('content-type', 'application/json');
    payload = JSON.stringify(body);
  }
  return fetch(path, { method, headers, body: payload ?? null });
}

async function parse<T>(res: Response, method: string, path: string): Promise<T> {
  if (res.status === 204) {
    await checkContract(method, path, 204, null);
    return {} as T;
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiCallError(res.status, undefined, text.slice(0, 200) || `HTTP ${res.status}`);
  }
  await checkContract(method, path, res.status, body);
  const b = (body ?? {}) as Fields;
  const data = (b.data ?? {}) as Fields;
  if (!res.ok || b.is_error === 1 || data.is_err === 1) throw errorFrom(res.status, body);
  return body as T;
}

export function keyHeaders(keyId = session.keyId() ?? ''): Headers {
  return new Headers({ 'x-ca-accesskeyid': keyId, 'x-ca-version': '1', 'accept-language': currentLang === 'zh' ? 'zh-CN' : 'en' });
}

/** A public API call with the signed-in key. */
export async function api<T>(path: string, method = 'GET', body?: Body, keyId?: string): Promise<T> {
  return parse<T>(await send(path, method, keyHeaders(keyId), body), method, path);
}

/** A public API call whose answer is kept raw (the analysis playground shows error bodies too). */
export async function apiRaw(path: string, method: string, body: Body): Promise<{ status: number; json: unknown }> {
  const res = await send(path, method, keyHeaders(), body);
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // shown as text
  }
  await checkContract(method, path, res.status, json);
  return { status: res.status, json };
}

/** Bytes of an authenticated resource (thumbnails, batch results) as an object URL. */
export async function apiBlobUrl(path: string): Promise<string> {
  const res = await fetch(path, { headers: keyHeaders() });
  if (!res.ok) throw errorFrom(res.status, await res.json().catch(() => null));
  return URL.createObjectURL(await res.blob());
}

/** An admin API call with the operator's bearer token. */
export async function admin<T>(path: string, method = 'GET', body?: Body): Promise<T> {
  const headers = new Headers({ authorization: `Bearer ${session.adminToken() ?? ''}` });
  return parse<T>(await send(`/admin${path}`, method, headers, body), method, `/admin${path}`);
}

export function form(fields: Record<string, string | Blob | undefined>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === '') continue;
    if (value instanceof File) data.append(name, value, value.name);
    else if (value instanceof Blob) data.append(name, value, name);
    else data.append(name, value);
  }
  return data;
}
