/** Endpoint rows as the contract shows them. */
import { formatTime, formatTimeOrNull, type WebhookEndpoint } from '@iris/shared';
import type { z } from 'zod';
import type { EndpointView } from './webhook-endpoint.repo.js';

export function endpointObject(e: EndpointView): z.input<typeof WebhookEndpoint> {
  const d = e.last_delivery;
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    created_at: formatTime(e.created_at),
    pending_deliveries: e.pending_deliveries,
    last_delivery: d && {
      event_id: d.event_id,
      event_type: d.event_type,
      state: d.state,
      attempts: d.attempts,
      http_status: d.http_status,
      error: d.error,
      created_at: formatTime(d.created_at),
      last_attempt_at: formatTimeOrNull(d.last_attempt_at),
      next_attempt_at: d.state === 'pending' ? formatTime(d.next_attempt_at) : null,
    },
  };
}
