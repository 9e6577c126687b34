import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

const imageSet = { owned: { kind: 'image_set' } } as const;

/** `/image_sets/_0000014`: create (400/5004 without a name, checked first; quota 403/3003), by-id calls (404/2001, 403/1002), services on a set (quota 403/3006). */
export const imageSetRoutes = new Hono<AppEnv>()
  .post('/', proxy({ operation: 'createImageSet', required: ['name'], create: { kind: 'image_set', quota: 'imageSets' } }))
  .all('/', proxy())
  .post('/:id/services', proxy({ ...imageSet, create: { kind: 'search_service', quota: 'searchServices' } }))
  .all('/:id', proxy(imageSet))
  .all('/:id/*', proxy(imageSet));
