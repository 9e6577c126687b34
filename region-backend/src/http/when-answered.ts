/**
 * Runs `release` as a request's answer is handed over (onSend), with onResponse and onRequestAbort behind it
 * for requests that end another way. Per-request counts use it: freed at onResponse only, a caller sending its
 * next request as soon as it reads the answer would find its previous one still counted. `release` must be
 * idempotent: it may run more than once per request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

export function releaseWhenAnswered(app: FastifyInstance, release: (request: FastifyRequest) => void): void {
  app.addHook('onSend', async (request, _reply, payload) => {
    release(request);
    return payload;
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));
}
