/** SQL of the file uploads: which of some URLs a set holds. */
import type { Queryable } from '../data-sets/set.repo.js';

export type HeldStatus = 'pending' | 'downloaded' | 'failed';

/** The live records of the set among `urls`, by URL (a record being downloaded counts as pending). */
export async function heldUrls(db: Queryable, setId: string, urls: string[]): Promise<Map<string, HeldStatus>> {
  const result = await db.query<{ url: string; status: string }>(
    `SELECT url, status FROM data_set_records WHERE set_id = $1 AND url = ANY($2::text[]) AND deleted_at IS NULL`,
    [setId, urls],
  );
  return new Map(result.rows.map((r) => [r.url, r.status === 'downloading' ? 'pending' : (r.status as HeldStatus)]));
}
