import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, verifyInternal, type BodyBinding } from '@iris/shared';
import { NonceMemory } from './internal-nonces.js';
import { contextFrom } from './request-context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body, checked against the length and hash the edge signed (read it instead of `raw`). */
    irisPayload?: Readable;
  }
}

function refused(reason: string): ApiError {
  return new ApiError('unauthorizedInternal', `requests must come through the Iris edge (${reason})`);
}

/** Passes the body through, failing the stream when it is longer, shorter or other than the signed one. */
class BoundBody extends Transform {
  #length = 0;
  readonly #hash;

  constructor(private readonly binding: BodyBinding | undefined) {
    super();
    this.#hash = binding?.sha256 ? createHash('sha256') : undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#length += chunk.length;
    if (this.#length > (this.binding?.length ?? 0)) return done(refused('body longer than signed'));
    this.#hash?.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.#length !== (this.binding?.length ?? 0)) return done(refused('body shorter than signed'));
    if (this.#hash && this.#hash.digest('hex') !== this.binding!.sha256) return done(refused('body differs from the signed one'));
    done();
  }
}

/**
 * Every request must come from the edge: a valid internal signature over the request line, account,
 * timestamp and context, with a nonce not seen before, and a body equal to the one the context binds.
 * Anything else is refused before routing, so an exposed backend port is not a way around authentication
 * and a captured call cannot be replayed or given another body. `/healthz` and `/livez` are the only open
 * paths (no data).
 */
export function registerInternalAuth(app: FastifyInstance, secret: string): void {
  const nonces = new NonceMemory();
  app.decorateRequest('ctx', null as unknown as FastifyRequest['ctx']);
  app.addHook('onRequest', async function verifyEdgeSignature(request) {
    if (request.url === '/healthz' || request.url === '/livez' || request.url === '/readyz') return;
    const result = await verifyInternal(secret, {
      method: request.method,
      pathWithQuery: request.url,
      header: (name) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      },
    });
    const reason = !result.ok
      ? result.reason
      : !result.context.nonce
        ? 'signature without a nonce'
        : !nonces.claim(result.context.nonce, Number(request.headers['x-iris-timestamp']))
          ? 'replayed signature'
          : undefined;
    if (reason || !result.ok) {
      request.log.warn({ reason, url: request.url }, 'refused request without a valid edge signature');
      throw refused(reason ?? 'invalid signature');
    }
    request.ctx = contextFrom(result.accountId, result.context);
  });
  app.addHook('preParsing', async function bindBody(request, _reply, payload) {
    if (request.url === '/healthz' || request.url === '/livez' || !request.ctx) return payload;
    const bound = payload.pipe(new BoundBody(request.ctx.forward.body));
    payload.on('error', (err) => bound.destroy(err));
    // The body may fail its binding before a handler reads it (a first chunk already too long): the error
    // stays on the stream (`errored`) for the reader instead of escaping as an unhandled 'error' event.
    bound.on('error', () => {});
    request.irisPayload = bound;
    return bound;
  });
}

/** Operator-only routes are forwarded by the edge's admin API with account 0. */
export function requireOperator(request: FastifyRequest): void {
  if (request.ctx.accountId !== 0) throw new ApiError('notFound', 'not found');
}
