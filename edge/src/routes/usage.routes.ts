import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

/**
 * `/iris/usage`, `/iris/{kind}/{id}/export` and `/iris/{kind}/{id}/state` (docs/usage-and-export.md). Usage is answered by the region
 * of the address called, for that region alone (the console asks each region); an export names a set the
 * caller must own in this region, and its JSON lines are streamed through as the backend writes them; a
 * support document names a batch task or a service the caller owns in this region.
 */
export const usageRoutes = new Hono<AppEnv>()
  .get('/usage', proxy())
  .get('/image_sets/:id/export', proxy({ owned: { kind: 'image_set' } }))
  .get('/product_sets/:id/export', proxy({ owned: { kind: 'product_set' } }))
  .get('/training_sets/:id/export', proxy({ owned: { kind: 'training_set' } }))
  .get('/batch_tasks/:id/state', proxy({ owned: { kind: 'batch_task' } }))
  .get('/search_services/:id/state', proxy({ owned: { kind: 'search_service' } }))
  .get('/custom_services/:id/state', proxy({ owned: { kind: 'custom_service' } }));
