/** Verifies a signed call: signature, timestamp within the allowed skew, nonce not seen before. */
import { ApiError } from '@iris/shared';
import type { Database } from '../db/database.js';
import type { RequestBody } from '../http/request-body.js';
import { claimNonce } from './nonce.repo.js';
import { SIGNED_HEADERS, signatureMatches } from './signature.js';

/** The nonce lengths the released clients send (PROTOCOL.md: 16–36 characters, a UUID at most). */
export const NONCE_CHARS = { min: 16, max: 36 } as const;

/** A nonce of an accepted length (checked on the trimmed value, as the clients sign it). */
export function isAcceptedNonce(nonce: string | undefined): nonce is string {
  return nonce !== undefined && nonce.length >= NONCE_CHARS.min && nonce.length <= NONCE_CHARS.max;
}

export interface SignedCall {
  /** Nonces are remembered per key, by key hash. */
  keyId: string;
  secret: string;
  headers: Headers;
  body: RequestBody;
  maxSkewSeconds: number;
  now?: number;
}

export async function verifyRequestSignature(db: Database, call: SignedCall): Promise<void> {
  const signature = call.headers.get('x-ca-signature');
  if (!signature) throw new ApiError('signatureInvalid', 'this access key requires signed requests (x-ca-signature)');
  const signedHeaders: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = call.headers.get(name);
    if (value !== null) signedHeaders[name] = value;
  }
  const params = [...call.body.query, ...call.body.form];
  const ok = await signatureMatches(call.secret, signature, { headers: signedHeaders, params, jsonBody: call.body.json?.signed ?? null });
  if (!ok) throw new ApiError('signatureInvalid', 'the request signature does not match');

  const now = call.now ?? Date.now();
  const timestampText = signedHeaders['x-ca-timestamp'] ?? '';
  const timestamp = /^\d{1,12}$/.test(timestampText.trim()) ? Number(timestampText.trim()) : NaN;
  if (!Number.isFinite(timestamp) || Math.abs(now / 1000 - timestamp) > call.maxSkewSeconds) {
    throw new ApiError('signatureExpired', `x-ca-timestamp is missing or more than ${call.maxSkewSeconds} s away from the server clock`);
  }
  const nonce = signedHeaders['x-ca-signaturenonce']?.trim();
  if (!isAcceptedNonce(nonce)) throw new ApiError('signatureInvalid', `x-ca-signaturenonce must be ${NONCE_CHARS.min} to ${NONCE_CHARS.max} characters`);
  // Remembered until its timestamp leaves the window; after that the timestamp alone refuses a replay.
  const expiresAt = (Math.max(timestamp, Math.floor(now / 1000)) + call.maxSkewSeconds) * 1000;
  if (!(await claimNonce(db, call.keyId, nonce, expiresAt, now))) throw new ApiError('signatureReplayed', 'this signature nonce was already used');
}
