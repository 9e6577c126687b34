/** The edge Worker: request context, the admin API, the public API; one error mapping for all of it. */
import { Hono } from 'hono';
import { adminRoutes } from './admin/admin.routes.js';
import type { AppEnv } from './env.js';
import { accessLog } from './http/access-log.middleware.js';
import { serverTiming } from './http/server-timing.middleware.js';
import { handleError, handleNotFound } from './http/error-handler.js';
import { edgeConfig, requestContext } from './http/request-context.middleware.js';
import { openApiRoutes } from './routes/openapi.routes.js';
import { publicRoutes } from './routes/public.routes.js';

/** Routing ignores trailing slashes (`/search/x/` is `/search/x`). */
function routingPath(request: Request): string {
  const path = new URL(request.url).pathname.replace(/\/+$/, '') || '/';
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

export function createApp() {
  return new Hono<AppEnv>({ getPath: routingPath })
    .use(requestContext(), edgeConfig(), accessLog(), serverTiming())
    .route('/admin', adminRoutes)
    .route('/', openApiRoutes)
    .route('/', publicRoutes)
    .notFound(handleNotFound)
    .onError(handleError);
}

export const app = createApp();
