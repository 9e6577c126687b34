/**
 * Recording an event: one delivery row per endpoint of the account subscribed to its type. Called with the
 * client of the transaction that makes the state change, so the event exists exactly when the change does;
 * sending happens later, in the dispatcher, and never holds up the work.
 */
import { randomUUID } from 'node:crypto';
import { formatTime, type WebhookEventType } from '@iris/shared';
import type { Queryable } from '../data-sets/set.repo.js';

export interface WebhookEvent {
  accountId: number;
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** The delivered body: `{id, type, created_at, data}`. */
export function eventBody(id: string, type: WebhookEventType, createdAt: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ id, type, created_at: formatTime(createdAt), data });
}

/** Queues the event for every subscribed endpoint; answers how many deliveries were queued. */
export async function recordEvent(db: Queryable, event: WebhookEvent): Promise<number> {
  const id = `evt_${randomUUID().replace(/-/g, '')}`;
  const result = await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, body)
     SELECT e.id, $2, $3, $4 FROM webhook_endpoints e WHERE e.account_id = $1 AND $3 = ANY(e.events)`,
    [event.accountId, id, event.type, eventBody(id, event.type, new Date(), event.data)],
  );
  return result.rowCount ?? 0;
}
