/** The operator API at `/admin` (never forwarded, except `/admin/regions/{region}/...` by design). */
import { Hono } from 'hono';
import { sql } from 'drizzle-orm';
import { ApiError } from '@iris/shared';
import { database } from '../db/database.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';
import { adminAuditTrail } from '../audit/audit-trail.middleware.js';
import { auditAdminRoutes } from '../routes/audit.routes.js';
import { accountAdminRoutes } from './accounts.routes.js';
import { adminAuth } from './admin-auth.middleware.js';
import { keyAdminRoutes } from './keys.routes.js';
import { regionHealth } from './region-health.js';
import { regionForwardRoutes } from './region-forward.routes.js';

export const adminRoutes = new Hono<AppEnv>()
  .use(adminAuth(), adminAuditTrail())
  .get('/health', async function health(c) {
    const config = c.get('config');
    await database(c.env.DB).run(sql`SELECT 1`);
    const regions = await regionHealth(config);
    const degraded = Object.values(regions).some((r) => r.backend_configured && !r.ready);
    return json({ status: degraded ? 'degraded' : 'ok', d1: 'ok', regions });
  })
  .route('/accounts', accountAdminRoutes)
  .route('/keys', keyAdminRoutes)
  .route('/audit', auditAdminRoutes)
  .route('/regions', regionForwardRoutes)
  .all('*', (c) => {
    throw new ApiError('notFound', `no such admin endpoint: ${c.req.method} ${c.get('forwardPath')}`);
  });
