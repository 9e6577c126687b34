/**
 * Access-key secrets at rest: AES-256-GCM under the master key (Worker secret `SECRETS_MASTER_KEY`, 32 bytes
 * in base64), a fresh 96-bit IV per secret, the row's key hash as associated data (a ciphertext moved to
 * another row does not decrypt). Key ids are stored and looked up as their SHA-256.
 */
import { sha256Hex } from '@iris/shared';
import { ConfigError } from '../config.js';

const VERSION = 'v1:';
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const keys = new Map<string, Promise<CryptoKey>>();

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function unbase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function masterKey(master: string | undefined): Promise<CryptoKey> {
  if (!master) throw new ConfigError('SECRETS_MASTER_KEY is not set (32 random bytes, base64)');
  let key = keys.get(master);
  if (!key) {
    let raw: Uint8Array<ArrayBuffer>;
    try {
      raw = unbase64(master.trim());
    } catch {
      raw = new Uint8Array(0);
    }
    if (raw.byteLength !== 32) throw new ConfigError('SECRETS_MASTER_KEY must be 32 bytes in base64');
    key = crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    keys.set(master, key);
  }
  return key;
}

export function keyHash(keyId: string): Promise<string> {
  return sha256Hex(keyId);
}

/** What listings show of a key id (the id itself is not stored). */
export function keyHint(keyId: string): string {
  return keyId.length > 8 ? `${keyId.slice(0, 6)}…` : `${keyId.slice(0, 2)}…`;
}

export async function sealSecret(master: string | undefined, hash: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(hash) }, await masterKey(master), encoder.encode(secret));
  const out = new Uint8Array(12 + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), 12);
  return VERSION + base64(out);
}

export async function openSecret(master: string | undefined, hash: string, sealed: string): Promise<string> {
  if (!sealed.startsWith(VERSION)) throw new ConfigError('a stored secret has an unknown format');
  const bytes = unbase64(sealed.slice(VERSION.length));
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: encoder.encode(hash) }, await masterKey(master), bytes.subarray(12));
    return decoder.decode(plain);
  } catch {
    throw new ConfigError('a stored secret cannot be decrypted: SECRETS_MASTER_KEY differs from the one it was stored with');
  }
}
