/**
 * Access keys as the rest of the edge sees them (id and plain secret) over rows that hold neither: the id
 * is looked up by its SHA-256, the secret is sealed under SECRETS_MASTER_KEY. Keys stored before migration
 * 0002 are converted on first use.
 */
import { effectiveQuotas } from './quota.repo.js';
import { KEY_SCOPES, type KeyScope, type Quotas } from '@iris/shared';
import type { CallSession } from '../db/call-session.js';
import type { Database } from '../db/database.js';
import type { AccessKey } from '../db/schema.js';
import { findKeyRowForAuth, findLegacyKeys, replaceLegacyKeys } from './access-key.repo.js';
import { keyHash, keyHint, openSecret, sealSecret } from './secret-box.js';

/** Everything authentication needs about a key, kept in the isolate cache. */
export interface AuthKey {
  keyId: string;
  keyHash: string;
  secret: string;
  accountId: number;
  enabled: boolean;
  /** The key's own flag or its account's. */
  signatureRequired: boolean;
  accountDisabled: boolean;
  quotas: Quotas;
  keyRef: string | null;
  /** null: every scope. */
  scopes: readonly KeyScope[] | null;
  expiresAt: number | null;
}

/** The public name of a key (`kr` + 20 hex digits, as migration 0004 gives existing keys). */
export function newKeyRef(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `kr${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const SCOPE_SEPARATOR = ',';

export function scopesText(scopes: readonly KeyScope[] | null | undefined): string | null {
  return scopes ? scopes.join(SCOPE_SEPARATOR) : null;
}

/** Stored scopes; an unknown name (written by a newer edge) grants nothing. */
export function parseScopes(text: string | null): KeyScope[] | null {
  if (text === null) return null;
  return text.split(SCOPE_SEPARATOR).filter((s): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s));
}

export interface NewKey {
  keyId: string;
  secret: string;
  accountId: number;
  enabled: boolean;
  signatureRequired: boolean;
  createdAt: number;
  name?: string | null;
  scopes?: readonly KeyScope[] | null;
  expiresAt?: number | null;
  rotatedFrom?: string | null;
}

export async function sealedKeyRow(master: string | undefined, input: NewKey): Promise<AccessKey> {
  const hash = await keyHash(input.keyId);
  return {
    keyHash: hash,
    keyHint: keyHint(input.keyId),
    secretEnc: await sealSecret(master, hash, input.secret),
    accountId: input.accountId,
    enabled: input.enabled,
    signatureRequired: input.signatureRequired,
    createdAt: input.createdAt,
    keyRef: newKeyRef(),
    name: input.name ?? null,
    scopes: scopesText(input.scopes),
    expiresAt: input.expiresAt ?? null,
    rotatedFrom: input.rotatedFrom ?? null,
  };
}

/** Converts plain-text keys (one id, or up to 100 of an account per call) to hashed, sealed rows. */
export async function convertLegacyKeys(db: Database, master: string | undefined, filter: { keyId?: string; accountId?: number }): Promise<number> {
  const legacy = await findLegacyKeys(db, filter);
  if (!legacy.length) return 0;
  const rows = await Promise.all(legacy.map(async (row) => ({ legacyKeyId: row.keyId, key: await sealedKeyRow(master, row) })));
  await replaceLegacyKeys(db, rows);
  return rows.length;
}

/**
 * With the call's session, a key a replica does not know is looked up again on the primary (a key just
 * issued through the admin API): an unknown key costs three round trips, a known one one.
 */
export async function findKeyForAuth(db: Database, master: string | undefined, keyId: string, session?: Pick<CallSession, 'retryOnPrimary'>): Promise<AuthKey | undefined> {
  const hash = await keyHash(keyId);
  const readRow = () => findKeyRowForAuth(db, hash);
  let found = await (session ? session.retryOnPrimary(readRow, (row) => row !== undefined) : readRow());
  if (!found && (await convertLegacyKeys(db, master, { keyId }))) found = await findKeyRowForAuth(db, hash);
  if (!found) return undefined;
  return {
    keyId,
    keyHash: hash,
    secret: await openSecret(master, hash, found.key.secretEnc),
    accountId: found.key.accountId,
    enabled: found.key.enabled,
    signatureRequired: found.key.signatureRequired || found.accountSignatureRequired,
    accountDisabled: found.accountDisabled,
    quotas: effectiveQuotas(found.quotaOverrides),
    keyRef: found.key.keyRef,
    scopes: parseScopes(found.key.scopes),
    expiresAt: found.key.expiresAt,
  };
}
