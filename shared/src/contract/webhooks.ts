/**
 * Iris extension: an account registers HTTPS endpoints that are told when asynchronous work ends (a batch
 * task, a custom training, a search service catching up with its set). Deliveries are signed, retried with
 * back-off and listed with their last status (docs/webhooks.md).
 */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../webhook-events.js';
import { ANY_FORM, op, pathParams, requestId, timestamp } from './common.js';

export { WEBHOOK_EVENTS, WEBHOOK_HEADERS, type WebhookEventType } from '../webhook-events.js';


/** Bounds of a registration body, checked before any other work. */
export const WEBHOOK_LIMITS = { urlChars: 2048, descriptionChars: 256 } as const;

export const RegisterWebhook = z
  .object({
    url: z.string().max(WEBHOOK_LIMITS.urlChars).describe('https URL the events are POSTed to'),
    events: z
      .union([z.array(z.string().max(64)).max(WEBHOOK_EVENTS.length * 2), z.string().max(256)])
      .optional()
      .describe(`events to send (a list, or comma-separated): ${WEBHOOK_EVENTS.join(', ')}; default all`),
    description: z.string().max(WEBHOOK_LIMITS.descriptionChars).optional(),
  })
  .passthrough();
export type RegisterWebhookInput = z.output<typeof RegisterWebhook>;

export const WebhookDeliveryState = z.enum(['pending', 'delivered', 'failed']);
export const WebhookDelivery = z.object({
  event_id: z.string(),
  event_type: z.string(),
  state: WebhookDeliveryState.describe('pending: waiting for its next attempt; delivered: a 2xx answer; failed: every attempt failed'),
  attempts: z.number().int(),
  http_status: z.number().int().nullable().describe("the receiver's HTTP status of the last attempt (null: no answer)"),
  error: z.string().nullable().describe('why the last attempt failed'),
  created_at: timestamp,
  last_attempt_at: timestamp.nullable(),
  next_attempt_at: timestamp.nullable().describe('when a pending delivery is tried again'),
});
export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  created_at: timestamp,
  pending_deliveries: z.number().int().describe('deliveries waiting for an attempt or a retry'),
  last_delivery: WebhookDelivery.nullable().describe('the most recent delivery (null before the first event)'),
});
export const RegisteredWebhook = WebhookEndpoint.extend({
  request_id: requestId,
  secret: z.string().describe('signing secret of the endpoint: shown once, here'),
});
export const WebhookList = z.object({ request_id: requestId, results: z.array(WebhookEndpoint) });

const tag = 'Iris extensions';
export const webhookOperations = [
  op({
    id: 'registerWebhook', method: 'post', path: '/iris/webhooks', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Register an HTTPS endpoint for events of asynchronous work; the answer holds its signing secret, shown once',
    errorCodes: ['invalidData', 'webhookQuota'], body: { schema: RegisterWebhook, forms: ANY_FORM, required: true }, response: RegisteredWebhook,
  }),
  op({
    id: 'listWebhooks', method: 'get', path: '/iris/webhooks', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "The account's endpoints in this region, each with its last delivery", response: WebhookList,
  }),
  op({
    id: 'deleteWebhook', method: 'delete', path: '/iris/webhooks/{webhook_id}', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Delete an endpoint (its pending deliveries are dropped)', errorCodes: ['webhookNotFound'], params: pathParams('webhook_id'), response: null, status: 204,
  }),
];
