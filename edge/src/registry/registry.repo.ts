/** The resource registry (SQL, and the isolate's copies of the rows it changes). */
import { and, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { RegionId, RegistryChanges, ResourceKind } from '@iris/shared';
import { forgetResources } from '../cache/hot-path.cache.js';
import type { Database } from '../db/database.js';
import { resources, type Resource } from '../db/schema.js';

export async function findResource(db: Database, id: string): Promise<Resource | undefined> {
  const [row] = await db.select().from(resources).where(eq(resources.id, id)).limit(1);
  return row;
}

export interface PendingInsert {
  id: string;
  kind: ResourceKind;
  accountId: number;
  region: RegionId;
  now: number;
  /** Refuse the insert when live rows plus pending rows newer than `pendingSince` already reach `limit`. */
  quota?: { limit: number; pendingSince: number };
}

/** Inserts a pending row; false when the quota is reached. The count and the insert are one statement. */
export async function insertPending(db: Database, row: PendingInsert): Promise<boolean> {
  if (!row.quota) {
    await db.insert(resources).values({ id: row.id, kind: row.kind, accountId: row.accountId, region: row.region, state: 'pending', createdAt: row.now, updatedAt: row.now });
    return true;
  }
  const result = await db.run(sql`
    INSERT INTO resources (id, kind, account_id, region, state, created_at, updated_at)
    SELECT ${row.id}, ${row.kind}, ${row.accountId}, ${row.region}, 'pending', ${row.now}, ${row.now}
    WHERE (SELECT count(*) FROM resources
           WHERE account_id = ${row.accountId} AND kind = ${row.kind}
             AND (state = 'live' OR (state = 'pending' AND created_at > ${row.quota.pendingSince}))) < ${row.quota.limit}`);
  return (result.meta.changes ?? 0) > 0;
}

/** Removes a pending row whose create did not succeed (a live row is never removed here). */
export async function discardPending(db: Database, id: string): Promise<void> {
  forgetResources([id]);
  await db.delete(resources).where(and(eq(resources.id, id), eq(resources.state, 'pending')));
}

/** Applies a backend's `x-iris-registry` report, only to the caller's rows in the backend's region. */
export async function applyRegistryChanges(db: Database, accountId: number, region: RegionId, changes: RegistryChanges, now = Date.now()): Promise<void> {
  const scope = (ids: string[]) => and(inArray(resources.id, ids), eq(resources.accountId, accountId), eq(resources.region, region));
  const statements = [];
  const live = (changes.live ?? []).filter((id) => typeof id === 'string');
  const deleted = (changes.deleted ?? []).filter((id) => typeof id === 'string');
  if (live.length) statements.push(db.update(resources).set({ state: 'live', updatedAt: now }).where(and(scope(live), eq(resources.state, 'pending'))));
  if (deleted.length) statements.push(db.update(resources).set({ state: 'deleted', updatedAt: now }).where(and(scope(deleted), ne(resources.state, 'deleted'))));
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
  forgetResources([...live, ...deleted]);
}

export async function countLive(db: Database, accountId: number, kind: ResourceKind): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(resources)
    .where(and(eq(resources.accountId, accountId), eq(resources.kind, kind), eq(resources.state, 'live')));
  return row?.n ?? 0;
}
