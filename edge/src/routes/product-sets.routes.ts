import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

const productSet = { owned: { kind: 'product_set' } } as const;
const searchService = { owned: { kind: 'search_service' } } as const;

/** `/product_sets/_0000178`: sets (404/1004, 403/1005, quota 403/3005), their products and search services (quota 403/3006). */
export const productSetRoutes = new Hono<AppEnv>()
  .post('/', proxy({ operation: 'createProductSet', required: ['name'], create: { kind: 'product_set', quota: 'productSets' } }))
  .all('/', proxy())
  .all('/services', proxy())
  .all('/services/:id', proxy(searchService))
  .all('/services/:id/*', proxy(searchService))
  .post('/:id/services', proxy({ ...productSet, create: { kind: 'search_service', quota: 'searchServices' } }))
  .all('/:id', proxy(productSet))
  .all('/:id/*', proxy(productSet));
