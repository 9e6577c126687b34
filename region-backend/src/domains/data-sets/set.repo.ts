/** SQL for the data_sets table. Counts are always derived from the records (one aggregate), so they never drift. */
import type pg from 'pg';

export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

export type SetKind = 'image_set' | 'product_images' | 'training_set';

export interface DataSetRow {
  id: string;
  account_id: number;
  kind: SetKind;
  name: string;
  description: string;
  created_at: Date;
  modified_at: Date;
  n_items: number;
  n_downloaded: number;
  n_failed: number;
}

/** `n_items`, `n_downloaded`, `n_failed` of the live records of the set whose id is `setIdColumn`. */
export function recordCounts(setIdColumn: string): { columns: string; join: string } {
  return {
    columns: `COALESCE(c.n_items, 0)::int AS n_items,
         COALESCE(c.n_downloaded, 0)::int AS n_downloaded,
         COALESCE(c.n_failed, 0)::int AS n_failed`,
    join: `LEFT JOIN LATERAL (
    SELECT count(*) AS n_items,
           count(*) FILTER (WHERE r.status = 'downloaded') AS n_downloaded,
           count(*) FILTER (WHERE r.status = 'failed') AS n_failed
    FROM data_set_records r
    WHERE r.set_id = ${setIdColumn} AND r.deleted_at IS NULL
  ) c ON true`,
  };
}

const COUNTS = recordCounts('s.id');
const WITH_COUNTS = `
  SELECT s.id, s.account_id, s.kind, s.name, s.description, s.created_at, s.modified_at, ${COUNTS.columns}
  FROM data_sets s
  ${COUNTS.join}`;

export async function insertDataSet(
  db: Queryable,
  row: { id: string; accountId: number; kind: SetKind; name: string; description: string },
): Promise<DataSetRow> {
  await db.query('INSERT INTO data_sets (id, account_id, kind, name, description) VALUES ($1, $2, $3, $4, $5)', [
    row.id,
    row.accountId,
    row.kind,
    row.name,
    row.description,
  ]);
  return (await findDataSet(db, row.accountId, row.id, row.kind))!;
}

export async function findDataSet(db: Queryable, accountId: number, id: string, kind: SetKind): Promise<DataSetRow | null> {
  const result = await db.query<DataSetRow>(`${WITH_COUNTS} WHERE s.account_id = $1 AND s.id = $2 AND s.kind = $3`, [accountId, id, kind]);
  return result.rows[0] ?? null;
}

/** Any set by id, whatever its kind and account (for jobs, which act on behalf of the set's owner). */
export async function findDataSetById(db: Queryable, id: string): Promise<DataSetRow | null> {
  const result = await db.query<DataSetRow>(`${WITH_COUNTS} WHERE s.id = $1`, [id]);
  return result.rows[0] ?? null;
}

export async function listDataSets(db: Queryable, accountId: number, kind: SetKind): Promise<DataSetRow[]> {
  const result = await db.query<DataSetRow>(`${WITH_COUNTS} WHERE s.account_id = $1 AND s.kind = $2 ORDER BY s.created_at, s.id`, [accountId, kind]);
  return result.rows;
}

/** Changes name and/or description; returns false when the set does not exist. */
export async function updateDataSet(
  db: Queryable,
  accountId: number,
  id: string,
  kind: SetKind,
  changes: { name?: string; description?: string },
): Promise<boolean> {
  const result = await db.query(
    `UPDATE data_sets SET name = COALESCE($4, name), description = COALESCE($5, description), modified_at = now()
     WHERE account_id = $1 AND id = $2 AND kind = $3`,
    [accountId, id, kind, changes.name ?? null, changes.description ?? null],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Deletes the set and (by cascade) its records. */
export async function deleteDataSet(db: Queryable, accountId: number, id: string, kind: SetKind): Promise<boolean> {
  const result = await db.query('DELETE FROM data_sets WHERE account_id = $1 AND id = $2 AND kind = $3', [accountId, id, kind]);
  return (result.rowCount ?? 0) > 0;
}
