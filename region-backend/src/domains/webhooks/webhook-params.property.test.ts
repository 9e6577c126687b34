import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError, operationById, parseInput, WEBHOOK_EVENTS } from '@iris/shared';
import { parseRegistration } from './webhook-params.js';
import { parseEndpointUrl } from './webhook-url.js';

const op = operationById('registerWebhook');

/** What a registration body becomes: accepted with a known subset of events and an https (or loopback) URL, or 400/5001. */
function outcome(body: unknown, allowLoopback: boolean) {
  try {
    const input = parseInput(op.body.schema, op, body);
    const registration = parseRegistration(input);
    const url = parseEndpointUrl(registration.url, allowLoopback);
    return { registration, url };
  } catch (err) {
    if (isApiError(err)) return { status: err.status, code: err.code };
    throw err;
  }
}

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('', ' ', ',', '[', '[]', '["x"]', '[1]', 'null', '{}'));
const urlish = fc.oneof(
  text,
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom('https://127.0.0.1/x', 'http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]:8/x', 'https://user:pw@example.com', 'javascript:alert(1)', 'file:///etc/passwd', 'http://10.0.0.1/'),
  fc.string({ minLength: 2000, maxLength: 3000 }).map((s) => `https://example.com/${s}`),
);
const events = fc.oneof(
  fc.constant(undefined),
  text,
  fc.subarray([...WEBHOOK_EVENTS]).map((l) => l.join(',')),
  fc.subarray([...WEBHOOK_EVENTS]).map((l) => JSON.stringify(l)),
  fc.array(fc.oneof(fc.constantFrom(...WEBHOOK_EVENTS), text), { maxLength: 8 }),
);
const body = fc.record({ url: fc.oneof(urlish, fc.constant(undefined), fc.integer()), events, description: fc.oneof(fc.constant(undefined), text, fc.string({ minLength: 250, maxLength: 300 })) }, { requiredKeys: [] });

describe('registration bodies, hostile ones included', () => {
  it('are accepted with known events and an allowed URL, or refused with 400/5001, never anything else', () => {
    fc.assert(
      fc.property(body, fc.boolean(), fc.anything(), (b, allowLoopback, extra) => {
        const result = outcome({ ...b, extra }, allowLoopback);
        if ('code' in result) {
          expect([result.status, result.code]).toEqual([400, 5001]);
          return;
        }
        const { registration, url } = result;
        expect(registration.events.length).toBeGreaterThan(0);
        for (const e of registration.events) expect(WEBHOOK_EVENTS).toContain(e);
        expect(new Set(registration.events).size).toBe(registration.events.length);
        expect(registration.description.length).toBeLessThanOrEqual(256);
        expect(url.href.length).toBeLessThanOrEqual(2048 + 16);
        expect(url.username + url.password).toBe('');
        if (url.protocol === 'http:') {
          expect(allowLoopback).toBe(true);
          expect(['localhost', '127.0.0.1', '[::1]']).toContain(url.hostname);
        } else expect(url.protocol).toBe('https:');
      }),
      { numRuns: 3000 },
    );
  });
});
