/**
 * Signed requests (PROTOCOL.md, "Request signing"): the five signed headers plus every non-file parameter
 * (query string, form or multipart text fields), sorted, joined, the exact JSON body text appended; HMAC-SHA1
 * with the secret, base64. `signingFetch` signs every call a client makes.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { signedPairs } from './shared.js';

export interface SignedCall {
  method: string;
  url: URL;
  /** The call's headers (the access key id and version are among them). */
  headers: Headers;
  body: string | FormData | undefined;
}

/** The headers that sign `call` (timestamp and nonce fixed only by tests). */
export function signatureHeaders(secret: string, call: SignedCall, fixed: { timestamp?: number; nonce?: string } = {}): Record<string, string> {
  const added: Record<string, string> = {
    'x-ca-timestamp': String(fixed.timestamp ?? Math.floor(Date.now() / 1000)),
    'x-ca-signaturenonce': fixed.nonce ?? randomUUID(),
    requestmethod: call.method.toUpperCase(),
  };
  const signed: Record<string, string> = { ...added };
  for (const name of ['x-ca-accesskeyid', 'x-ca-version']) {
    const value = call.headers.get(name);
    if (value !== null) signed[name] = value;
  }
  const params: [string, string][] = [...call.url.searchParams];
  let jsonBody: string | null = null;
  const type = call.headers.get('content-type') ?? '';
  if (call.body instanceof FormData) {
    for (const [key, value] of call.body) if (typeof value === 'string') params.push([key, value]);
  } else if (typeof call.body === 'string') {
    if (type.includes('json')) jsonBody = call.body;
    else if (type.includes('urlencoded')) params.push(...new URLSearchParams(call.body));
  }
  const text = signedPairs({ headers: signed, params }) + (jsonBody ?? '');
  return { ...added, 'x-ca-signature': createHmac('sha1', secret).update(text, 'utf8').digest('base64') };
}

/** A fetch that signs each call with `secret` before sending it. */
export function signingFetch(secret: string, base: typeof fetch = fetch): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' || init.body instanceof FormData ? init.body : undefined;
    for (const [k, v] of Object.entries(signatureHeaders(secret, { method: init.method ?? 'GET', url, headers, body }))) headers.set(k, v);
    return base(url, { ...init, headers });
  };
}
