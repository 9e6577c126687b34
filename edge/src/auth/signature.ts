/** Request signatures of the released clients (PROTOCOL.md): the HMAC-SHA1 over the signed string, base64 with padding. */
import { signedPairs, type SigningInput } from './signed-string.js';

export { SIGNED_HEADERS, stringToSign, type SigningInput } from './signed-string.js';

const encoder = new TextEncoder();

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export async function hmacSha1Base64(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  return base64(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message))));
}

const SHA1_BLOCK = 64;

/**
 * HMAC-SHA1 (RFC 2104) over pieces that are never joined: the inner hash streams them through a
 * DigestStream, so a 50 MB JSON body is hashed where it lies instead of being copied into one message.
 */
export async function hmacSha1Base64Parts(secret: string, parts: readonly Uint8Array[]): Promise<string> {
  let key = encoder.encode(secret);
  if (key.byteLength > SHA1_BLOCK) key = new Uint8Array(await crypto.subtle.digest('SHA-1', key));
  const ipad = new Uint8Array(SHA1_BLOCK).fill(0x36);
  const opad = new Uint8Array(SHA1_BLOCK + 20).fill(0x5c, 0, SHA1_BLOCK);
  for (let i = 0; i < key.byteLength; i++) {
    ipad[i]! ^= key[i]!;
    opad[i]! ^= key[i]!;
  }
  const inner = new crypto.DigestStream('SHA-1');
  const writer = inner.getWriter();
  await writer.write(ipad);
  for (const part of parts) if (part.byteLength > 0) await writer.write(part);
  await writer.close();
  opad.set(new Uint8Array(await inner.digest), SHA1_BLOCK);
  return base64(new Uint8Array(await crypto.subtle.digest('SHA-1', opad)));
}

async function macOf(secret: string, input: SigningInput): Promise<string> {
  const pairs = signedPairs(input);
  if (input.jsonBody instanceof Uint8Array) return hmacSha1Base64Parts(secret, [encoder.encode(pairs), input.jsonBody]);
  return hmacSha1Base64(secret, pairs + (input.jsonBody ?? ''));
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** True when `signature` matches the raw or the white-space-stripped signing string. */
export async function signatureMatches(secret: string, signature: string, input: Omit<SigningInput, 'strip'>): Promise<boolean> {
  if (constantTimeEqual(await macOf(secret, input), signature.trim())) return true;
  const stripped = { ...input, strip: true };
  return signedPairs(stripped) !== signedPairs(input) && constantTimeEqual(await macOf(secret, stripped), signature.trim());
}
