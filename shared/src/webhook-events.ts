/** Webhook event types and delivery header names, free of zod so the console's first chunk can use them. */

/** The events an endpoint may subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENTS = ['batch_task.finished', 'custom_training.finished', 'search_service.indexed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** Header names of a delivery. */
export const WEBHOOK_HEADERS = {
  signature: 'iris-signature',
  event: 'iris-event',
  delivery: 'iris-delivery',
} as const;
