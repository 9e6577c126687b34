/** SQL of the record export: a set's records in id order, one keyset page at a time. */
import type { Queryable } from '../data-sets/set.repo.js';
import type { RecordStatus } from '../set-records/set-records.params.js';
import { RECORD_COLUMNS, STATUS_FILTER, type BrowsedRecord } from '../set-records/set-records.repo.js';

/**
 * The set's live records after record `afterId` (exclusive), at most `limit`, in id order: each page starts
 * where the last ended on the browse index (set_id, id), so a page deep in a large set costs what the first does.
 */
export async function recordsAfter(db: Queryable, setId: string, status: RecordStatus | null, afterId: string, limit: number): Promise<BrowsedRecord[]> {
  const result = await db.query<BrowsedRecord>(
    `SELECT ${RECORD_COLUMNS}
     FROM data_set_records r
     WHERE r.set_id = $1 AND r.deleted_at IS NULL AND ${STATUS_FILTER} AND r.id > $3::bigint
     ORDER BY r.id LIMIT $4`,
    [setId, status, afterId, limit],
  );
  return result.rows;
}
