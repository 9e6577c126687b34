import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

const searchService = { owned: { kind: 'search_service' } } as const;

/** Search services by id (404/2002 for unknown and foreign ids) and their query endpoints. */
export const searchRoutes = new Hono<AppEnv>()
  .all('/customer_services/_0000172', proxy())
  .all('/customer_services/_0000172/:id', proxy(searchService))
  // Iris extension: the service's self-evaluation (start, poll).
  .on(['GET', 'POST'], '/customer_services/_0000172/:id/evaluation', proxy(searchService))
  .all('/customer_services/_0000172/:id/*', proxy(searchService))
  .all('/search/:id', proxy(searchService))
  .all('/product_search/:id', proxy(searchService));
