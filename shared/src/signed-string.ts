/**
 * Request signatures of the released clients (PROTOCOL.md): HMAC-SHA1 over the sorted `key=value` pairs
 * of the five signed headers and every non-file parameter, joined with `&`, values raw, with the exact JSON
 * body text appended; base64 with padding. This module builds the signed string only (no crypto, so Node
 * clients, the CLI and tests share it); the edge's auth/signature.ts computes and checks the MAC.
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
  /** Exact JSON body when the body is JSON: its text (clients) or its bytes (the edge, which never decodes it for this). */
  jsonBody?: string | Uint8Array | null;
  /** Python clients strip white space around every value before signing. */
  strip?: boolean;
}

/** The string the client signed, without the JSON body. */
export function signedPairs(input: SigningInput): string {
  const values = new Map<string, string>();
  for (const [key, value] of input.params) if (!UNSIGNED.has(key.toLowerCase())) values.set(key, value);
  for (const name of SIGNED_HEADERS) {
    const value = input.headers[name];
    if (value !== undefined) values.set(name, value);
  }
  const keys = [...values.keys()].sort(compareBytes);
  return keys.map((key) => `${key}=${input.strip ? values.get(key)!.trim() : values.get(key)!}`).join('&');
}

/** The string the client signed (clients and tests: a JSON body given as text). */
export function stringToSign(input: SigningInput & { jsonBody?: string | null }): string {
  return signedPairs(input) + (input.jsonBody ?? '');
}

