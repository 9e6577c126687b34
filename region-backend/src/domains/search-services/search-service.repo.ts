/** SQL for the search_services table. */
import type { Queryable } from '../data-sets/set.repo.js';

export type SearchServiceKind = 'image_set' | 'product_set';

/** The indexing state of a service (what jobs, pollers and queries need). */
export interface ServiceState {
  id: string;
  account_id: number;
  kind: SearchServiceKind;
  scenario: string;
  set_id: string;
  product_set_id: string | null;
  pipeline: string;
  /** The pipeline being built in the background while `pipeline` serves (the embedder changed), or null. */
  next_pipeline: string | null;
  /** Live items embedded under next_pipeline so far. */
  n_rebuilt: number;
  source_seq: number;
  index_seq: number;
  purged_seq: number;
  n_indexed: number;
  caught_up_at: Date | null;
}

/** A service as the API shows it: its state plus names, times and the set's downloaded count. */
export interface SearchServiceRow extends ServiceState {
  name: string;
  created_at: Date;
  updated_at: Date | null;
  indexed_at: Date | null;
  n_downloaded: number;
  /** Indexed items that wait for their second pass (thumbnail views, keypoints). */
  n_first_pass_only: number;
}

const STATE = `s.id, s.account_id, s.kind, s.scenario, s.set_id, s.product_set_id, s.pipeline, s.next_pipeline, s.n_rebuilt, s.source_seq, s.index_seq,
               s.purged_seq, s.n_indexed, s.caught_up_at`;

const WITH_COUNTS = `
  SELECT ${STATE}, s.name, s.created_at, s.updated_at, s.indexed_at, COALESCE(c.n, 0)::int AS n_downloaded, COALESCE(f.n, 0)::int AS n_first_pass_only
  FROM search_services s
  LEFT JOIN LATERAL (
    SELECT count(*) AS n FROM data_set_records r WHERE r.set_id = s.set_id AND r.deleted_at IS NULL AND r.status = 'downloaded'
  ) c ON true
  LEFT JOIN LATERAL (
    SELECT count(*) AS n FROM search_index_items i WHERE i.service_id = s.id AND i.first_pass_only AND i.deleted_at IS NULL
  ) f ON true`;

/**
 * Inserts a service unless its set already has `perSetLimit` services (one statement: the count and the
 * insert); false when the set is full.
 */
export async function insertService(
  db: Queryable,
  row: { id: string; accountId: number; kind: SearchServiceKind; name: string; scenario: string; setId: string; productSetId: string | null; pipeline: string },
  perSetLimit = Number.MAX_SAFE_INTEGER,
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO search_services (id, account_id, kind, name, scenario, set_id, product_set_id, pipeline)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8
      WHERE (SELECT count(*) FROM search_services WHERE set_id = $6) < $9`,
    [row.id, row.accountId, row.kind, row.name, row.scenario, row.setId, row.productSetId, row.pipeline, perSetLimit],
  );
  return (result.rowCount ?? 0) > 0;
}

/** One service of an account, optionally only of one kind. */
export async function findService(db: Queryable, accountId: number, id: string, kind?: SearchServiceKind): Promise<SearchServiceRow | null> {
  const result = await db.query<SearchServiceRow>(`${WITH_COUNTS} WHERE s.account_id = $1 AND s.id = $2 AND ($3::text IS NULL OR s.kind = $3)`, [
    accountId,
    id,
    kind ?? null,
  ]);
  return result.rows[0] ?? null;
}

export async function listServices(db: Queryable, accountId: number, kind?: SearchServiceKind): Promise<SearchServiceRow[]> {
  const result = await db.query<SearchServiceRow>(
    `${WITH_COUNTS} WHERE s.account_id = $1 AND ($2::text IS NULL OR s.kind = $2) ORDER BY s.created_at, s.id`,
    [accountId, kind ?? null],
  );
  return result.rows;
}

export async function renameService(db: Queryable, accountId: number, id: string, name: string, kind?: SearchServiceKind): Promise<boolean> {
  const result = await db.query(
    `UPDATE search_services SET name = $3, updated_at = now() WHERE account_id = $1 AND id = $2 AND ($4::text IS NULL OR kind = $4)`,
    [accountId, id, name, kind ?? null],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Deletes the service and (by cascade) its index items. */
export async function deleteService(db: Queryable, accountId: number, id: string, kind?: SearchServiceKind): Promise<boolean> {
  const result = await db.query(`DELETE FROM search_services WHERE account_id = $1 AND id = $2 AND ($3::text IS NULL OR kind = $3)`, [
    accountId,
    id,
    kind ?? null,
  ]);
  return (result.rowCount ?? 0) > 0;
}

/** The indexing state of one service of an account (no counts: the query path). */
export async function findServiceState(db: Queryable, accountId: number, id: string): Promise<ServiceState | null> {
  const result = await db.query<ServiceState>(`SELECT ${STATE} FROM search_services s WHERE s.account_id = $1 AND s.id = $2`, [accountId, id]);
  return result.rows[0] ?? null;
}

/** Any service by id (jobs and pollers act for the owner). */
export async function serviceState(db: Queryable, id: string): Promise<ServiceState | null> {
  const result = await db.query<ServiceState>(`SELECT ${STATE} FROM search_services s WHERE s.id = $1`, [id]);
  return result.rows[0] ?? null;
}

/** The state of every service (the poller catches up the indexes a process holds and drops deleted ones). */
export async function allServiceStates(db: Queryable): Promise<ServiceState[]> {
  const result = await db.query<ServiceState>(`SELECT ${STATE} FROM search_services s ORDER BY s.created_at, s.id`);
  return result.rows;
}

/**
 * Services with work to do: their set changed after what they applied, their pipeline is not the one
 * their scenario maps to now (`pipelines`: scenario → pipeline), or items wait for their second pass. One
 * probe per service of data_set_records (set_id, change_seq) and of the first-pass items' partial index.
 */
export async function staleServiceIds(db: Queryable, pipelines: Record<string, string>): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `SELECT s.id FROM search_services s
     WHERE s.pipeline IS DISTINCT FROM (SELECT t.p FROM unnest($1::text[], $2::text[]) AS t(sc, p) WHERE t.sc = s.scenario)
        OR EXISTS (SELECT 1 FROM data_set_records r WHERE r.set_id = s.set_id AND r.change_seq > s.source_seq)
        OR EXISTS (SELECT 1 FROM search_index_items i WHERE i.service_id = s.id AND i.first_pass_only AND i.deleted_at IS NULL)`,
    [Object.keys(pipelines), Object.values(pipelines)],
  );
  return result.rows.map((r) => r.id);
}

/** True when a service depends on the set (image set, product set or a product set's bound image set). */
export async function setHasService(db: Queryable, setId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM search_services WHERE set_id = $1 OR product_set_id = $1 LIMIT 1', [setId]);
  return (result.rowCount ?? 0) > 0;
}
