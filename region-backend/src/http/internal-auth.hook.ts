import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, verifyInternal } from '@iris/shared';
import { contextFrom } from './request-context.js';

/**
 * Every request must come from the edge: a valid internal signature over the request line, account,
 * timestamp and context. Anything else is refused before routing, so an exposed backend port is not a
 * way around authentication. `/healthz` is the only open path (no data).
 */
export function registerInternalAuth(app: FastifyInstance, secret: string): void {
  app.decorateRequest('ctx', null as unknown as FastifyRequest['ctx']);
  app.addHook('onRequest', async function verifyEdgeSignature(request) {
    if (request.url === '/healthz' || request.url === '/readyz') return;
    const result = await verifyInternal(secret, {
      method: request.method,
      pathWithQuery: request.url,
      header: (name) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      },
    });
    if (!result.ok) {
      request.log.warn({ reason: result.reason, url: request.url }, 'refused request without a valid edge signature');
      throw new ApiError('unauthorizedInternal', 'requests must come through the Iris edge');
    }
    request.ctx = contextFrom(result.accountId, result.context);
  });
}

/** Operator-only routes are forwarded by the edge's admin API with account 0. */
export function requireOperator(request: FastifyRequest): void {
  if (request.ctx.accountId !== 0) throw new ApiError('notFound', 'not found');
}
