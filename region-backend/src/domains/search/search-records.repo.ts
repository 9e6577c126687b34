/** SQL for the records behind search hits: their current attributes (meta, url, product fields). */
import type { Queryable } from '../data-sets/set.repo.js';

export interface HitRecord {
  id: number;
  url: string;
  meta: string;
  tags: string[];
  product_id: string;
  price: string;
  keywords: string;
}

/** Live records of the set among the ids (deleted ones the index has not dropped yet are left out). */
export async function liveRecords(db: Queryable, setId: string, ids: readonly number[]): Promise<Map<number, HitRecord>> {
  if (!ids.length) return new Map();
  const result = await db.query<HitRecord>(
    `SELECT id, url, meta, tags, product_id, price, keywords FROM data_set_records
     WHERE set_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL`,
    [setId, ids],
  );
  return new Map(result.rows.map((r) => [Number(r.id), r]));
}
