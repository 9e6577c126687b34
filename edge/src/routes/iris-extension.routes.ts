import { Hono } from 'hono';
import { ApiError } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

/**
 * `/iris/...`: Iris's own read-only extensions (record browsing, thumbnails and label counts, used by the
 * web console).
 * Each names a set the caller must own in this region, checked like the set's public paths.
 */
export const irisExtensionRoutes = new Hono<AppEnv>()
  .get('/image_sets/:id/records/*', proxy({ owned: { kind: 'image_set' } }))
  .get('/image_sets/:id/records', proxy({ owned: { kind: 'image_set' } }))
  .get('/product_sets/:id/records/*', proxy({ owned: { kind: 'product_set' } }))
  .get('/product_sets/:id/records', proxy({ owned: { kind: 'product_set' } }))
  .get('/training_sets/:id/records/*', proxy({ owned: { kind: 'training_set' } }))
  .get('/training_sets/:id/records', proxy({ owned: { kind: 'training_set' } }))
  .get('/training_sets/:id/labels', proxy({ owned: { kind: 'training_set' } }))
  .all('*', () => {
    throw new ApiError('notFound', 'no such endpoint');
  });
