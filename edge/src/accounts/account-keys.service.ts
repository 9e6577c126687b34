/**
 * Keys an account manages itself (docs/tenants.md, "Access keys"): create with the secret shown once,
 * change, rotate with an overlap, delete. Every change drops the isolate's cached copy of the key; other
 * isolates see it within EDGE_CACHE_TTL_MS, and an expiry (a rotation's end too) is checked on every call.
 */
import { ApiError, type KeyScope } from '@iris/shared';
import { forgetKey, forgetKeyHash } from '../cache/hot-path.cache.js';
import type { Database } from '../db/database.js';
import type { AccessKey } from '../db/schema.js';
import { deleteKeyRow, findKeyRow, findKeyRowByRef, insertKeyRow, insertRotatedKey, updateKeyRow, type KeyChanges } from './access-key.repo.js';
import { convertLegacyKeys, parseScopes, sealedKeyRow } from './key-store.service.js';
import { keyHash } from './secret-box.js';

/** Default overlap of a rotation: the old key works for a day beside the new one. */
export const DEFAULT_ROTATION_OVERLAP_MS = 86_400_000;

export interface KeyRequest {
  keyId?: string;
  secret?: string;
  name?: string | null;
  scopes?: readonly KeyScope[] | null;
  expiresAt?: number | null;
  signatureRequired?: boolean;
  rotatedFrom?: string | null;
}

export interface CreatedKey {
  row: AccessKey;
  keyId: string;
  secret: string;
}

const conflict = (keyId: string) => new ApiError([409, 1111], `access key ${keyId} already exists (its secret is shown only when it is created)`);

/** A new key; a key id that exists is a conflict, never an echo of its secret. */
export async function createKey(db: Database, master: string | undefined, accountId: number, request: KeyRequest, ids: { keyId: () => string; secret: () => string }): Promise<CreatedKey> {
  checkExpiryAhead(request.expiresAt);
  if (request.keyId) {
    await convertLegacyKeys(db, master, { keyId: request.keyId });
    if (await findKeyRow(db, await keyHash(request.keyId))) throw conflict(request.keyId);
  }
  const keyId = request.keyId ?? ids.keyId();
  const secret = request.secret ?? ids.secret();
  const row = await sealedKeyRow(master, {
    keyId,
    secret,
    accountId,
    enabled: true,
    signatureRequired: request.signatureRequired ?? false,
    createdAt: Date.now(),
    name: request.name ?? null,
    scopes: request.scopes ?? null,
    expiresAt: request.expiresAt ?? null,
    rotatedFrom: request.rotatedFrom ?? null,
  });
  const inserted = await insertKeyRow(db, row).catch((err: unknown) => {
    if (/UNIQUE/i.test(String(err))) throw conflict(keyId);
    throw err;
  });
  forgetKey(keyId); // an id tried before it existed is no longer "unknown" here
  return { row: inserted, keyId, secret };
}

/** An expiry must lie ahead (a rotation may end an overlap at once, a create or change may not). */
export function checkExpiryAhead(expiresAt: number | null | undefined): void {
  if (typeof expiresAt === 'number' && expiresAt <= Date.now()) throw new ApiError('badRequest', 'expires_at: must be in the future');
}

export async function requireKeyByRef(db: Database, accountId: number, keyRef: string): Promise<AccessKey> {
  const key = /^kr[0-9a-f]{20}$/.test(keyRef) ? await findKeyRowByRef(db, accountId, keyRef) : undefined;
  if (!key) throw new ApiError('notFound', `access key ${keyRef.slice(0, 64)} does not exist`);
  return key;
}

export async function changeKey(db: Database, key: AccessKey, changes: KeyChanges): Promise<AccessKey> {
  checkExpiryAhead(changes.expiresAt);
  const updated = Object.keys(changes).length ? await updateKeyRow(db, key.keyHash, changes) : key;
  forgetKeyHash(key.keyHash);
  if (!updated) throw new ApiError('notFound', `access key ${key.keyRef ?? key.keyHint} does not exist`);
  return updated;
}

export async function deleteKey(db: Database, key: AccessKey): Promise<void> {
  await deleteKeyRow(db, key.keyHash);
  forgetKeyHash(key.keyHash);
}

/**
 * A new key (new id and secret) with the old one's name, scopes, signature flag and expiry; the old one
 * keeps working until `oldValidUntil` (never later than its own expiry).
 */
export async function rotateKey(
  db: Database,
  master: string | undefined,
  old: AccessKey,
  oldValidUntil: number,
  ids: { keyId: () => string; secret: () => string },
): Promise<{ created: CreatedKey; previous: AccessKey }> {
  const keyId = ids.keyId();
  const secret = ids.secret();
  const row = await sealedKeyRow(master, {
    keyId,
    secret,
    accountId: old.accountId,
    enabled: true,
    signatureRequired: old.signatureRequired,
    createdAt: Date.now(),
    name: old.name,
    scopes: parseScopes(old.scopes),
    expiresAt: old.expiresAt,
    rotatedFrom: old.keyRef,
  });
  const until = old.expiresAt === null ? oldValidUntil : Math.min(old.expiresAt, oldValidUntil);
  const [inserted, previous] = await insertRotatedKey(db, row, old, until);
  forgetKeyHash(old.keyHash);
  return { created: { row: inserted, keyId, secret }, previous };
}
