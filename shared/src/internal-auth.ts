/**
 * Edge → backend trust. The edge forwards every request with the resolved account and a context object,
 * signed with HMAC-SHA256 keyed by the region's shared secret over the request line, the account id, the
 * timestamp and the context. The context binds the body (its length, and its SHA-256 when the edge
 * buffered it) and carries a single-use nonce. A backend refuses any request whose signature is missing,
 * wrong or stale, whose nonce it has seen, or whose body differs from the bound one.
 * WebCrypto only, so the same code runs in the Worker and in Node.
 */
import type { Lang, Quotas } from './index.js';

export const INTERNAL_HEADERS = {
  account: 'x-iris-account',
  timestamp: 'x-iris-timestamp',
  context: 'x-iris-context',
  signature: 'x-iris-signature',
  /** Backend → edge: registry changes the edge applies after a successful call. */
  registry: 'x-iris-registry',
} as const;

/** What the edge tells the backend about the call, beyond the original request. */
export interface ForwardContext {
  requestId: string;
  lang: Lang;
  /** Id minted at the edge for a create call; the backend must use it. */
  resourceId?: string;
  /** The account's quotas, for limits the backend enforces (daily batch tasks). */
  quotas?: Quotas;
  /** Random, single use: the backend remembers it while the signature is valid and refuses a replay. */
  nonce?: string;
  /**
   * The body the signature covers: its length, and its SHA-256 (hex) when the edge buffered it. A streamed
   * upload is bound by its length and the single-use nonce. Absent: no body.
   */
  body?: BodyBinding;
  /** Body or query parameters the edge read and checked (e.g. `service_id`); the backend must read the same. */
  fields?: Record<string, string>;
  /** Ready-made services the account may run in this region (offered there and granted), for the backend's re-check. */
  services?: string[];
  /** Public base URL of the region as the caller reached it (links in answers are built on it). */
  publicBase?: string;
}

export interface BodyBinding {
  length: number;
  sha256?: string;
}

/** Registry changes reported by a backend in the `x-iris-registry` response header (JSON). */
export interface RegistryChanges {
  live?: string[];
  deleted?: string[];
}

/** Allowed clock difference between edge and backend. */
export const INTERNAL_MAX_SKEW_MS = 5 * 60 * 1000;

const encoder = new TextEncoder();

function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function base64UrlEncode(text: string): string {
  const bytes = encoder.encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64UrlDecode(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Imported once per secret (a handful per process): importKey costs more than the HMAC itself. */
const hmacKeys = new Map<string, ReturnType<typeof crypto.subtle.importKey>>();

async function hmacHex(secret: string, message: string): Promise<string> {
  let key = hmacKeys.get(secret);
  if (!key) {
    if (hmacKeys.size > 64) hmacKeys.clear();
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    hmacKeys.set(secret, key);
  }
  return toHex(await crypto.subtle.sign('HMAC', await key, encoder.encode(message)));
}

function canonical(method: string, pathWithQuery: string, account: string, timestamp: string, context: string): string {
  return [method.toUpperCase(), pathWithQuery, account, timestamp, context].join('\n');
}

export async function sha256Hex(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === 'string' ? encoder.encode(bytes) : bytes;
  return toHex(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

export function newNonce(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)).buffer);
}

/**
 * Headers to add to a forwarded request. `body`: the exact bytes (hashed), or `{ length }` for a streamed
 * body; a fresh nonce is added unless the context has one.
 */
export async function signInternal(
  secret: string,
  input: {
    method: string;
    pathWithQuery: string;
    accountId: number;
    context: ForwardContext;
    body?: Uint8Array | string | { length: number } | null;
    now?: number;
  },
): Promise<Record<string, string>> {
  const account = String(input.accountId);
  const timestamp = String(input.now ?? Date.now());
  const full: ForwardContext = { ...input.context, nonce: input.context.nonce ?? newNonce() };
  const body = input.body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    if (bytes.byteLength > 0) full.body = { length: bytes.byteLength, sha256: await sha256Hex(bytes) };
  } else if (body && body.length > 0) {
    full.body = { length: body.length };
  }
  const context = base64UrlEncode(JSON.stringify(full));
  const signature = await hmacHex(secret, canonical(input.method, input.pathWithQuery, account, timestamp, context));
  return {
    [INTERNAL_HEADERS.account]: account,
    [INTERNAL_HEADERS.timestamp]: timestamp,
    [INTERNAL_HEADERS.context]: context,
    [INTERNAL_HEADERS.signature]: signature,
  };
}

export type InternalVerification =
  | { ok: true; accountId: number; context: ForwardContext }
  | { ok: false; reason: string };

/** Verifies a forwarded request; `headers` is a case-insensitive getter. */
export async function verifyInternal(
  secret: string,
  input: { method: string; pathWithQuery: string; header: (name: string) => string | undefined; now?: number },
): Promise<InternalVerification> {
  const account = input.header(INTERNAL_HEADERS.account);
  const timestamp = input.header(INTERNAL_HEADERS.timestamp);
  const context = input.header(INTERNAL_HEADERS.context);
  const signature = input.header(INTERNAL_HEADERS.signature);
  if (!account || !timestamp || !context || !signature) return { ok: false, reason: 'missing internal signature' };
  if (!/^\d+$/.test(account) || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'malformed internal headers' };
  if (Math.abs((input.now ?? Date.now()) - Number(timestamp)) > INTERNAL_MAX_SKEW_MS) return { ok: false, reason: 'stale internal signature' };
  const expected = await hmacHex(secret, canonical(input.method, input.pathWithQuery, account, timestamp, context));
  if (!timingSafeEqual(expected, signature.toLowerCase())) return { ok: false, reason: 'bad internal signature' };
  try {
    return { ok: true, accountId: Number(account), context: JSON.parse(base64UrlDecode(context)) as ForwardContext };
  } catch {
    return { ok: false, reason: 'malformed internal context' };
  }
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
