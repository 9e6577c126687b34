/** Access keys and the account they belong to (SQL only). */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { accessKeys, accountQuotas, accounts, type AccessKey } from '../db/schema.js';

export interface KeyWithAccount {
  key: AccessKey;
  accountDisabled: boolean;
  quotaOverrides: typeof accountQuotas.$inferSelect | null;
}

/** One query for authentication: the key, its account's state and its quota overrides. */
export async function findKeyForAuth(db: Database, keyId: string): Promise<KeyWithAccount | undefined> {
  const [row] = await db
    .select({ key: accessKeys, accountDisabled: accounts.disabled, quotaOverrides: accountQuotas })
    .from(accessKeys)
    .innerJoin(accounts, eq(accounts.id, accessKeys.accountId))
    .leftJoin(accountQuotas, eq(accountQuotas.accountId, accessKeys.accountId))
    .where(eq(accessKeys.keyId, keyId))
    .limit(1);
  return row;
}

export async function findKey(db: Database, keyId: string): Promise<AccessKey | undefined> {
  const [row] = await db.select().from(accessKeys).where(eq(accessKeys.keyId, keyId)).limit(1);
  return row;
}

export async function listKeys(db: Database, accountId: number): Promise<AccessKey[]> {
  return db.select().from(accessKeys).where(eq(accessKeys.accountId, accountId)).orderBy(accessKeys.createdAt, accessKeys.keyId);
}

export async function insertKey(db: Database, key: Omit<AccessKey, 'createdAt'>, now = Date.now()): Promise<AccessKey> {
  const [row] = await db.insert(accessKeys).values({ ...key, createdAt: now }).returning();
  return row!;
}

export async function updateKey(
  db: Database,
  keyId: string,
  changes: Partial<Pick<AccessKey, 'enabled' | 'signatureRequired'>>,
  accountId?: number,
): Promise<AccessKey | undefined> {
  const where = accountId === undefined ? eq(accessKeys.keyId, keyId) : and(eq(accessKeys.keyId, keyId), eq(accessKeys.accountId, accountId));
  const [row] = await db.update(accessKeys).set(changes).where(where).returning();
  return row;
}
