/**
 * Read side for search indexing and training: what changed in a set since a change_seq, and the live
 * downloaded records of a set. Record ids are stable for the life of a record; re-adding a deleted URL
 * creates a new record (new id) while the old one stays a tombstone until purged.
 */
import type { Queryable } from './set.repo.js';

export interface RecordChange {
  id: number;
  url: string;
  meta: string;
  tags: string[];
  /** Training sets only ('' elsewhere). */
  label: string;
  /** Product sets only ('' elsewhere). */
  product_id: string;
  price: string;
  keywords: string;
  blob_key: string | null;
  width: number | null;
  height: number | null;
  status: 'pending' | 'downloading' | 'downloaded' | 'failed';
  deleted: boolean;
  change_seq: number;
}

const COLUMNS = `id, url, meta, tags, label, product_id, price, keywords, blob_key, width, height, status,
                 deleted_at IS NOT NULL AS deleted, change_seq`;

/**
 * Changes of one set after `afterSeq`, oldest first (at most `limit`). Call again with the last row's
 * `change_seq` until fewer than `limit` rows come back. Safe to poll: see record.repo.ts for why no change
 * committed later can carry a smaller seq within the set.
 */
export async function listRecordChanges(db: Queryable, setId: string, afterSeq: number, limit: number): Promise<RecordChange[]> {
  const result = await db.query<RecordChange>(
    `SELECT ${COLUMNS} FROM data_set_records WHERE set_id = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3`,
    [setId, afterSeq, limit],
  );
  return result.rows;
}

/** Live downloaded records of a set in id order, paged by `afterId` (0 to start). */
export async function listDownloadedRecords(db: Queryable, setId: string, afterId = 0, limit = 1000): Promise<RecordChange[]> {
  const result = await db.query<RecordChange>(
    `SELECT ${COLUMNS} FROM data_set_records
     WHERE set_id = $1 AND deleted_at IS NULL AND status = 'downloaded' AND id > $2 ORDER BY id LIMIT $3`,
    [setId, afterId, limit],
  );
  return result.rows;
}

/** The highest change_seq of a set so far (0 for none): where a fresh full read should resume polling. */
export async function lastChangeSeq(db: Queryable, setId: string): Promise<number> {
  const result = await db.query<{ seq: number | null }>('SELECT max(change_seq) AS seq FROM data_set_records WHERE set_id = $1', [setId]);
  return Number(result.rows[0]?.seq ?? 0);
}

/** Removes tombstones deleted before `before`; an indexer that last polled earlier must rebuild. */
export async function purgeRecordTombstones(db: Queryable, before: Date): Promise<number> {
  const result = await db.query('DELETE FROM data_set_records WHERE deleted_at IS NOT NULL AND deleted_at < $1', [before]);
  return result.rowCount ?? 0;
}
