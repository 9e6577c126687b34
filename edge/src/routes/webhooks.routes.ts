import { Hono } from 'hono';
import { ApiError } from '@iris/shared';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

/**
 * `/iris/webhooks`: the account's webhook endpoints in the region of the address called. They are the
 * account's own settings, not registry resources: the backend keys every query on the signed account id,
 * so another account's endpoint id answers 404 there.
 */
export const webhookRoutes = new Hono<AppEnv>()
  // `all`: the backend answers the methods it does not serve on this path.
  .all('/', proxy())
  .delete('/:id', proxy())
  .all('*', () => {
    throw new ApiError('notFound', 'no such endpoint');
  });
