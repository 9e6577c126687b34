/** SQL of webhook endpoints: register (within the account's bound), list with the last delivery, delete. */
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';
import type { Queryable } from '../data-sets/set.repo.js';

export interface EndpointRow {
  id: string;
  account_id: number;
  url: string;
  events: string[];
  description: string;
  created_at: Date;
}

export interface DeliveryRow {
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  http_status: number | null;
  error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
}

export interface EndpointView extends EndpointRow {
  pending_deliveries: number;
  last_delivery: DeliveryRow | null;
}

/** Stores the endpoint unless the account has `limit` already (null then); concurrent registrations cannot overshoot. */
export async function insertEndpoint(
  pool: pg.Pool,
  row: { id: string; accountId: number; url: string; events: string[]; description: string; secret: string },
  limit: number,
): Promise<EndpointRow | null> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('webhook-register'), $1::int)`, [row.accountId % 2_147_483_647]);
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1', [row.accountId]);
    if (Number(rows[0]!.n) >= limit) return null;
    const inserted = await client.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id, account_id, url, events, description, created_at`,
      [row.id, row.accountId, row.url, row.events, row.description, row.secret],
    );
    return inserted.rows[0]!;
  });
}

/** The account's endpoints, oldest first, each with its pending count and its latest delivery. */
export async function listEndpoints(db: Queryable, accountId: number): Promise<EndpointView[]> {
  const { rows } = await db.query<EndpointRow & { pending_deliveries: number; last_delivery: DeliveryRow | null }>(
    `SELECT e.id, e.account_id, e.url, e.events, e.description, e.created_at,
            (SELECT count(*)::int FROM webhook_deliveries p WHERE p.endpoint_id = e.id AND p.state = 'pending') AS pending_deliveries,
            (SELECT to_jsonb(d) FROM (
               SELECT event_id, event_type, state, attempts, http_status, error, created_at, last_attempt_at, next_attempt_at
               FROM webhook_deliveries WHERE endpoint_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1) d) AS last_delivery
     FROM webhook_endpoints e WHERE e.account_id = $1 ORDER BY e.created_at, e.id`,
    [accountId],
  );
  return rows.map((r) => ({ ...r, last_delivery: r.last_delivery ? reviveDates(r.last_delivery) : null }));
}

// to_jsonb turns timestamps into text.
function reviveDates(d: DeliveryRow): DeliveryRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return { ...d, created_at: date(d.created_at)!, last_attempt_at: date(d.last_attempt_at), next_attempt_at: date(d.next_attempt_at)! };
}

/** Deletes the account's endpoint (its deliveries go with it); false when there is none. */
export async function deleteEndpoint(db: Queryable, accountId: number, id: string): Promise<boolean> {
  const result = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2', [id, accountId]);
  return (result.rowCount ?? 0) > 0;
}
