/** Accounts (SQL only). */
import { asc, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { accounts, type Account } from '../db/schema.js';

export async function findAccount(db: Database, id: number): Promise<Account | undefined> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  return row;
}

export async function listAccounts(db: Database): Promise<Account[]> {
  return db.select().from(accounts).orderBy(asc(accounts.id));
}

export async function insertAccount(db: Database, input: { id?: number; name: string }, now = Date.now()): Promise<Account> {
  const [row] = await db.insert(accounts).values({ ...input, createdAt: now }).returning();
  return row!;
}

export async function setAccountDisabled(db: Database, id: number, disabled: boolean): Promise<Account | undefined> {
  const [row] = await db.update(accounts).set({ disabled }).where(eq(accounts.id, id)).returning();
  return row;
}

export async function setAccountSignatureRequired(db: Database, id: number, required: boolean): Promise<Account | undefined> {
  const [row] = await db.update(accounts).set({ signatureRequired: required }).where(eq(accounts.id, id)).returning();
  return row;
}
