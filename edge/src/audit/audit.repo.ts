/** The audit log in D1 (SQL only): one insert per audited call, pruned as it is written. */
import { and, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { auditLog, type AuditEntry } from '../db/schema.js';

/** Expired entries removed per write: bounded work on each audited call, more than one entry's worth. */
export const PRUNE_BATCH = 100;

export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** Inserts the entry and deletes up to PRUNE_BATCH entries older than the retention, in one round trip. */
export async function insertAuditEntry(db: Database, entry: NewAuditEntry, retentionMs: number): Promise<void> {
  const expired = db.select({ id: auditLog.id }).from(auditLog).where(lt(auditLog.at, entry.at - retentionMs)).orderBy(auditLog.at).limit(PRUNE_BATCH);
  await db.batch([db.insert(auditLog).values(entry), db.delete(auditLog).where(inArray(auditLog.id, expired))]);
}

export interface AuditFilter {
  accountId?: number;
  from?: number;
  to?: number;
  /** Entries with a smaller id (the next page, newest first). */
  beforeId?: number;
  limit: number;
}

/** Newest first; `limit + 1` rows are read so the caller knows whether a next page exists. */
export async function listAuditEntries(db: Database, filter: AuditFilter): Promise<AuditEntry[]> {
  const where: SQL[] = [];
  if (filter.accountId !== undefined) where.push(eq(auditLog.accountId, filter.accountId));
  if (filter.from !== undefined) where.push(gte(auditLog.at, filter.from));
  if (filter.to !== undefined) where.push(lt(auditLog.at, filter.to));
  if (filter.beforeId !== undefined) where.push(lt(auditLog.id, filter.beforeId));
  return db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(filter.limit + 1);
}
