import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

/**
 * `/iris/{image_sets|product_sets}/{id}/files` (upload a picture from a file, streamed on to the backend)
 * and `…/files/lookup` (which files a set holds): the set must be the caller's, in this region.
 */
export const fileUploadRoutes = new Hono<AppEnv>()
  .post('/image_sets/:id/files', proxy({ owned: { kind: 'image_set' } }))
  .post('/image_sets/:id/files/lookup', proxy({ owned: { kind: 'image_set' } }))
  .post('/product_sets/:id/files', proxy({ owned: { kind: 'product_set' } }))
  .post('/product_sets/:id/files/lookup', proxy({ owned: { kind: 'product_set' } }));
