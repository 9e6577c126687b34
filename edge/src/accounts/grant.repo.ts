/** Explicit service grants and revocations (SQL only). */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { serviceGrants } from '../db/schema.js';

export async function listExplicitGrants(db: Database, accountId: number): Promise<Map<string, boolean>> {
  const rows = await db.select().from(serviceGrants).where(eq(serviceGrants.accountId, accountId));
  return new Map(rows.map((r) => [r.serviceId, r.granted]));
}

export async function setGrant(db: Database, accountId: number, serviceId: string, granted: boolean, now = Date.now()): Promise<void> {
  await db
    .insert(serviceGrants)
    .values({ accountId, serviceId, granted, updatedAt: now })
    .onConflictDoUpdate({ target: [serviceGrants.accountId, serviceGrants.serviceId], set: { granted, updatedAt: now } });
}
