/** Access keys (by key hash), their account and quota overrides, and keys stored before 0002 (SQL only). */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { accessKeys, accountQuotas, accounts, legacyAccessKeys, type AccessKey, type LegacyAccessKey } from '../db/schema.js';

export interface KeyRowWithAccount {
  key: AccessKey;
  accountDisabled: boolean;
  accountSignatureRequired: boolean;
  quotaOverrides: typeof accountQuotas.$inferSelect | null;
}

/** One query for authentication: the key, its account's state and its quota overrides. */
export async function findKeyRowForAuth(db: Database, keyHash: string): Promise<KeyRowWithAccount | undefined> {
  const [row] = await db
    .select({ key: accessKeys, accountDisabled: accounts.disabled, accountSignatureRequired: accounts.signatureRequired, quotaOverrides: accountQuotas })
    .from(accessKeys)
    .innerJoin(accounts, eq(accounts.id, accessKeys.accountId))
    .leftJoin(accountQuotas, eq(accountQuotas.accountId, accessKeys.accountId))
    .where(eq(accessKeys.keyHash, keyHash))
    .limit(1);
  return row;
}

export async function findKeyRow(db: Database, keyHash: string): Promise<AccessKey | undefined> {
  const [row] = await db.select().from(accessKeys).where(eq(accessKeys.keyHash, keyHash)).limit(1);
  return row;
}

export async function listKeyRows(db: Database, accountId: number): Promise<AccessKey[]> {
  return db.select().from(accessKeys).where(eq(accessKeys.accountId, accountId)).orderBy(accessKeys.createdAt, accessKeys.keyHint);
}

export async function insertKeyRow(db: Database, key: Omit<AccessKey, 'createdAt'> & { createdAt?: number }, now = Date.now()): Promise<AccessKey> {
  const [row] = await db.insert(accessKeys).values({ ...key, createdAt: key.createdAt ?? now }).returning();
  return row!;
}

export type KeyChanges = Partial<Pick<AccessKey, 'enabled' | 'signatureRequired' | 'name' | 'scopes' | 'expiresAt'>>;

export async function findKeyRowByRef(db: Database, accountId: number, keyRef: string): Promise<AccessKey | undefined> {
  const [row] = await db.select().from(accessKeys).where(and(eq(accessKeys.keyRef, keyRef), eq(accessKeys.accountId, accountId))).limit(1);
  return row;
}

export async function deleteKeyRow(db: Database, keyHash: string): Promise<AccessKey | undefined> {
  const [row] = await db.delete(accessKeys).where(eq(accessKeys.keyHash, keyHash)).returning();
  return row;
}

/** A rotation in one batch: the new key, and the old one's expiry moved to the end of the overlap. */
export async function insertRotatedKey(db: Database, next: AccessKey, old: AccessKey, oldExpiresAt: number): Promise<[AccessKey, AccessKey]> {
  const [inserted, updated] = await db.batch([
    db.insert(accessKeys).values(next).returning(),
    db.update(accessKeys).set({ expiresAt: oldExpiresAt }).where(eq(accessKeys.keyHash, old.keyHash)).returning(),
  ]);
  return [inserted[0]!, updated[0] ?? { ...old, expiresAt: oldExpiresAt }];
}

export async function updateKeyRow(
  db: Database,
  keyHash: string,
  changes: KeyChanges,
  accountId?: number,
): Promise<AccessKey | undefined> {
  const where = accountId === undefined ? eq(accessKeys.keyHash, keyHash) : and(eq(accessKeys.keyHash, keyHash), eq(accessKeys.accountId, accountId));
  const [row] = await db.update(accessKeys).set(changes).where(where).returning();
  return row;
}

export async function findLegacyKeys(db: Database, filter: { keyId?: string; accountId?: number }, limit = 100): Promise<LegacyAccessKey[]> {
  const where = filter.keyId !== undefined ? eq(legacyAccessKeys.keyId, filter.keyId) : filter.accountId !== undefined ? eq(legacyAccessKeys.accountId, filter.accountId) : undefined;
  return db.select().from(legacyAccessKeys).where(where).limit(limit);
}

/** Stores the converted rows and drops their plain-text originals in one batch. */
export async function replaceLegacyKeys(db: Database, rows: { legacyKeyId: string; key: AccessKey }[]): Promise<void> {
  const [first, ...rest] = rows.flatMap(({ legacyKeyId, key }) => [
    db.insert(accessKeys).values(key).onConflictDoNothing(),
    db.delete(legacyAccessKeys).where(eq(legacyAccessKeys.keyId, legacyKeyId)),
  ]);
  if (first) await db.batch([first, ...rest]);
}
