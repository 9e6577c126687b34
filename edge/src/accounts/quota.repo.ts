/** Per-account quota overrides (SQL only) and the effective quotas they give. */
import { eq } from 'drizzle-orm';
import { QUOTA_FIELDS, type QuotaKey, type Quotas } from '@iris/shared';
import type { Database } from '../db/database.js';
import { accountQuotas } from '../db/schema.js';

type Overrides = Pick<typeof accountQuotas.$inferSelect, QuotaKey>;

export function effectiveQuotas(overrides: Partial<Overrides> | null | undefined): Quotas {
  return Object.fromEntries(QUOTA_FIELDS.map((f) => [f.key, overrides?.[f.key] ?? f.default])) as Quotas;
}

export async function getQuotas(db: Database, accountId: number): Promise<Quotas> {
  const [row] = await db.select().from(accountQuotas).where(eq(accountQuotas.accountId, accountId)).limit(1);
  return effectiveQuotas(row);
}

/** Sets the given quotas (null restores the default) and keeps the others. */
export async function setQuotas(db: Database, accountId: number, changes: Partial<{ [K in QuotaKey]: number | null }>, now = Date.now()): Promise<Quotas> {
  const [row] = await db
    .insert(accountQuotas)
    .values({ accountId, ...changes, updatedAt: now })
    .onConflictDoUpdate({ target: accountQuotas.accountId, set: { ...changes, updatedAt: now } })
    .returning();
  return effectiveQuotas(row);
}
