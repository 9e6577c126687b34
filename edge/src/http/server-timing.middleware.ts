import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

/**
 * Adds the edge's own total (`edge;dur=…`, from the call's arrival to its answer's headers) to the answer's
 * `Server-Timing`, after the backend's stages: the edge's share of a slow call is `edge` minus `backend`.
 */
export function serverTiming(): MiddlewareHandler<AppEnv> {
  return async function serverTiming(c, next) {
    await next();
    const edge = `edge;dur=${Date.now() - c.get('startedAt')}`;
    const backend = c.res.headers.get('server-timing');
    // An answer passed on from the backend may have immutable headers.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set('server-timing', backend ? `${backend}, ${edge}` : edge);
  };
}
