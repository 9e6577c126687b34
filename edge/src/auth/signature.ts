/**
 * Request signatures of the released clients (PROTOCOL.md): HMAC-SHA1 over the sorted `key=value` pairs
 * of the five signed headers and every non-file parameter, joined with `&`, values raw, with the exact JSON
 * body text appended; base64 with padding.
 */

export const SIGNED_HEADERS = ['x-ca-accesskeyid', 'x-ca-version', 'x-ca-timestamp', 'x-ca-signaturenonce', 'requestmethod'] as const;

/** Never signed even when a client sends them as parameters. */
const UNSIGNED = new Set(['x-ca-signature', 'user-agent', 'accept-language', 'x-ca-file-md5']);

const encoder = new TextEncoder();

function compareBytes(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export interface SigningInput {
  /** Values of the signed headers that are present (lower-case names). */
  headers: Record<string, string>;
  /** Query-string parameters, then form / multipart text fields (a later key replaces an earlier one). */
  params: Iterable<readonly [string, string]>;
  /** Exact JSON body text when the body is JSON. */
  jsonBody?: string | null;
  /** Python clients strip white space around every value before signing. */
  strip?: boolean;
}

/** The string the client signed. */
export function stringToSign(input: SigningInput): string {
  const values = new Map<string, string>();
  for (const [key, value] of input.params) if (!UNSIGNED.has(key.toLowerCase())) values.set(key, value);
  for (const name of SIGNED_HEADERS) {
    const value = input.headers[name];
    if (value !== undefined) values.set(name, value);
  }
  const keys = [...values.keys()].sort(compareBytes);
  const joined = keys.map((key) => `${key}=${input.strip ? values.get(key)!.trim() : values.get(key)!}`).join('&');
  return joined + (input.jsonBody ?? '');
}

export async function hmacSha1Base64(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
  let binary = '';
  for (const b of mac) binary += String.fromCharCode(b);
  return btoa(binary);
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** True when `signature` matches the raw or the white-space-stripped signing string. */
export async function signatureMatches(secret: string, signature: string, input: Omit<SigningInput, 'strip'>): Promise<boolean> {
  const raw = stringToSign(input);
  if (constantTimeEqual(await hmacSha1Base64(secret, raw), signature.trim())) return true;
  const stripped = stringToSign({ ...input, strip: true });
  return stripped !== raw && constantTimeEqual(await hmacSha1Base64(secret, stripped), signature.trim());
}
