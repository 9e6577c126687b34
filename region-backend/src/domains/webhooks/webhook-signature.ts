/**
 * The signature of a delivery, the way Stripe signs its events: `Iris-Signature: t=<unix seconds>,v1=<hex>`,
 * where the hex is HMAC-SHA256 of `<t>.<body>` keyed with the endpoint's secret. A receiver recomputes it and
 * refuses a timestamp too far from its clock (replays).
 */
import { createHmac, randomBytes } from 'node:crypto';

export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** A new endpoint secret: 32 random bytes, prefixed so it is recognisable in a receiver's configuration. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
