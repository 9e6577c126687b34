/** A registration body read into its parts; every refusal answers 400/5001 with the reason. */
import { ApiError, WEBHOOK_EVENTS, type RegisterWebhookInput, type WebhookEventType } from '@iris/shared';

export interface WebhookRegistration {
  url: string;
  events: WebhookEventType[];
  description: string;
}

const KNOWN = new Set<string>(WEBHOOK_EVENTS);

/** The body reader hands a JSON array over as its JSON text (fields are text); a form sends names comma-separated. */
function eventNames(value: string | string[]): string[] {
  if (Array.isArray(value)) return value;
  if (!value.trim().startsWith('[')) return value.split(',');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ApiError('invalidData', 'events is neither a list nor comma-separated names');
  }
  if (!Array.isArray(parsed) || !parsed.every((n): n is string => typeof n === 'string')) throw new ApiError('invalidData', 'events must be a list of names');
  return parsed;
}

export function parseEvents(value: RegisterWebhookInput['events']): WebhookEventType[] {
  if (value === undefined) return [...WEBHOOK_EVENTS];
  const names = eventNames(value).map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw new ApiError('invalidData', `events must name at least one of ${WEBHOOK_EVENTS.join(', ')}`);
  for (const name of names) {
    if (!KNOWN.has(name)) throw new ApiError('invalidData', `unknown event ${JSON.stringify(name.slice(0, 64))}: one of ${WEBHOOK_EVENTS.join(', ')}`);
  }
  return WEBHOOK_EVENTS.filter((e) => names.includes(e));
}

export function parseRegistration(input: RegisterWebhookInput): WebhookRegistration {
  const url = input.url.trim();
  if (!url) throw new ApiError('invalidData', 'url is required');
  return { url, events: parseEvents(input.events), description: (input.description ?? '').trim() };
}
