/** Rules shared by image sets and training sets (and the image set bound to a product set). */
import type pg from 'pg';
import { ApiError } from '@iris/shared';
import { findDataSet, insertDataSet, type DataSetRow, type Queryable, type SetKind } from './set.repo.js';

/** The set, or 404/2001 (the code image sets and training sets share). */
export async function requireSet(db: Queryable, accountId: number, id: string, kind: SetKind): Promise<DataSetRow> {
  const row = await findDataSet(db, accountId, id, kind);
  if (!row) throw new ApiError('setNotFound', kind === 'training_set' ? 'training set does not exist' : 'image set does not exist');
  return row;
}

/**
 * Creates a set with the id the edge minted. A retried create (same id, same account) answers the existing
 * set instead of failing.
 */
export async function createSet(
  pool: pg.Pool,
  row: { id: string; accountId: number; kind: SetKind; name: string; description: string },
): Promise<DataSetRow> {
  const existing = await findDataSet(pool, row.accountId, row.id, row.kind);
  if (existing) return existing;
  return insertDataSet(pool, row);
}
