/** SQL of the record-browsing extension. Every query is scoped by account and by the set's kind. */
import type { z } from 'zod';
import type { SetRecord } from '@iris/shared';
import type { Queryable } from '../data-sets/set.repo.js';
import type { BrowseKind, BrowseQuery } from './set-records.params.js';

/** A record as the contract's `SetRecord` has it, its time not yet formatted. */
export type BrowsedRecord = Omit<z.output<typeof SetRecord>, 'updated_at'> & { updated_at: Date };

/** The data set holding the records of a public set id, or null when the account has no such set. */
export async function resolveRecordSet(db: Queryable, accountId: number, kind: BrowseKind, id: string): Promise<string | null> {
  if (kind === 'product_sets') {
    const found = await db.query<{ image_set_id: string }>('SELECT image_set_id FROM product_sets WHERE id = $1 AND account_id = $2', [id, accountId]);
    return found.rows[0]?.image_set_id ?? null;
  }
  const setKind = kind === 'image_sets' ? 'image_set' : 'training_set';
  const found = await db.query<{ id: string }>('SELECT id FROM data_sets WHERE id = $1 AND account_id = $2 AND kind = $3', [id, accountId, setKind]);
  return found.rows[0]?.id ?? null;
}

// 'pending' covers the records being downloaded right now, as the set's counts do.
export const STATUS_FILTER = `($2::text IS NULL OR r.status = $2 OR ($2 = 'pending' AND r.status = 'downloading'))`;

/** A record's columns as the contract's `SetRecord` names them (table alias `r`). */
export const RECORD_COLUMNS = `r.id::text AS id, r.url, r.meta, r.tags, r.label, r.product_id, r.price, r.keywords,
              CASE WHEN r.status = 'downloading' THEN 'pending' ELSE r.status END AS status,
              r.last_error, r.width, r.height, r.updated_at`;

export interface SetCounts {
  n_items: number;
  n_downloaded: number;
  n_failed: number;
}

/**
 * One page of the set's records, the number matching the filter, and the set's counts: one statement, so the
 * counts and the page are read from the same snapshot (two queries on two connections could show a page of
 * downloaded records beside counts from before their downloads).
 */
export async function listRecords(db: Queryable, setId: string, query: BrowseQuery): Promise<{ total: number; counts: SetCounts; rows: BrowsedRecord[] }> {
  const result = await db.query<SetCounts & { [K in keyof BrowsedRecord]: BrowsedRecord[K] | null }>(
    `SELECT c.n_items, c.n_downloaded, c.n_failed, p.*
     FROM (SELECT count(*)::int AS n_items,
                  count(*) FILTER (WHERE r.status = 'downloaded')::int AS n_downloaded,
                  count(*) FILTER (WHERE r.status = 'failed')::int AS n_failed
           FROM data_set_records r WHERE r.set_id = $1 AND r.deleted_at IS NULL) c
     LEFT JOIN LATERAL (
       SELECT ${RECORD_COLUMNS}
       FROM data_set_records r
       WHERE r.set_id = $1 AND r.deleted_at IS NULL AND ${STATUS_FILTER}
       ORDER BY r.id LIMIT $3 OFFSET $4
     ) p ON true
     ORDER BY p.id::bigint`,
    [setId, query.status, query.count, query.page * query.count],
  );
  const first = result.rows[0];
  const counts: SetCounts = first ? { n_items: first.n_items, n_downloaded: first.n_downloaded, n_failed: first.n_failed } : { n_items: 0, n_downloaded: 0, n_failed: 0 };
  const rows = result.rows.filter((row) => row.id !== null).map(({ n_items: _i, n_downloaded: _d, n_failed: _f, ...row }) => row as BrowsedRecord);
  const total = {
    all: counts.n_items,
    downloaded: counts.n_downloaded,
    failed: counts.n_failed,
    pending: counts.n_items - counts.n_downloaded - counts.n_failed,
  }[query.status ?? 'all'];
  return { total, counts, rows };
}

/** The stored picture of one live record of the set, or null (unknown, deleted, or not downloaded). */
export async function recordBlob(db: Queryable, setId: string, recordId: string): Promise<string | null> {
  const found = await db.query<{ blob_key: string | null }>(
    `SELECT blob_key FROM data_set_records WHERE set_id = $1 AND id = $2::bigint AND deleted_at IS NULL AND status = 'downloaded'`,
    [setId, recordId],
  );
  return found.rows[0]?.blob_key ?? null;
}

/** Records per label of a set (training sets): all live records and the downloaded ones. */
export async function labelCounts(db: Queryable, setId: string): Promise<{ label: string; total: number; downloaded: number; failed: number }[]> {
  const result = await db.query<{ label: string; total: number; downloaded: number; failed: number }>(
    `SELECT label, count(*)::int AS total,
            count(*) FILTER (WHERE status = 'downloaded')::int AS downloaded,
            count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL
     GROUP BY label ORDER BY label LIMIT 10000`,
    [setId],
  );
  return result.rows;
}
