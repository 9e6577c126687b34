/**
 * The public API: authentication, then one sub-app per domain; anything else goes to the backend as is,
 * except the backends' own paths (health, metrics, internal), which do not exist here.
 */
import { Hono } from 'hono';
import { publicAuditTrail } from '../audit/audit-trail.middleware.js';
import { accessKey, callDatabase, failedAuthLimit, requestBody, signature } from '../auth/auth.middleware.js';
import { keyRateLimit } from '../auth/rate-limit.middleware.js';
import { requireScope } from '../auth/scopes.js';
import type { AppEnv } from '../env.js';
import { accountKeyRoutes } from './account-keys.routes.js';
import { auditRoutes } from './audit.routes.js';
import { readYourWrites } from '../http/read-your-writes.middleware.js';
import { analysisRoutes } from './analysis.routes.js';
import { backendOnlyPaths } from './backend-only-paths.middleware.js';
import { batchRoutes } from './batch.routes.js';
import { customTrainingRoutes } from './custom-training.routes.js';
import { fileUploadRoutes } from './file-uploads.routes.js';
import { imageSetRoutes } from './image-sets.routes.js';
import { irisExtensionRoutes } from './iris-extension.routes.js';
import { productSetRoutes } from './product-sets.routes.js';
import { resultLinks } from './result-links.handler.js';
import { proxy } from './proxy.handler.js';
import { searchRoutes } from './search.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { usageRoutes } from './usage.routes.js';

export const publicRoutes = new Hono<AppEnv>()
  .use(backendOnlyPaths(), callDatabase(), failedAuthLimit(), resultLinks(), accessKey(), readYourWrites(), keyRateLimit(), requestBody(), signature(), publicAuditTrail(), requireScope())
  .route('/image_sets/_0000014', imageSetRoutes)
  .route('/product_sets/_0000178', productSetRoutes)
  .route('/custom_training', customTrainingRoutes)
  .route('/batch/_1000001', batchRoutes)
  .route('/iris/webhooks', webhookRoutes)
  .route('/iris', accountKeyRoutes)
  .route('/iris', auditRoutes)
  .route('/iris', usageRoutes)
  .route('/iris', fileUploadRoutes)
  .route('/iris', irisExtensionRoutes)
  .route('/', searchRoutes)
  .route('/', analysisRoutes)
  .all('*', proxy());
