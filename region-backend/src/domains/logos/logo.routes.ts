/**
 * Operator API of the logo library (account 0 only; the edge forwards `/admin/regions/{region}/logos...`):
 * POST /admin/logos (multipart `brand`, optional `brand_zh`, one or more `images` files), GET /admin/logos,
 * GET /admin/logos/{brand_id}, DELETE /admin/logos/{brand_id}.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '@iris/shared';
import { requireOperator } from '../../http/internal-auth.hook.js';
import { readBody } from '../../http/request-body.js';
import type { Domain } from '../domain.js';
import { brandDetailsView, brandView } from './logo.mappers.js';
import { LogoService, parseBrandId } from './logo.service.js';

/** Reference artwork files are small; 20 MB leaves room for print-resolution PNGs. */
const MAX_REFERENCE_BYTES = 20 * 1024 * 1024;

const routes: FastifyPluginAsync = async (app) => {
  const service = new LogoService({ db: app.db.pool, pool: app.inference, decoder: app.decoder });

  // Encapsulated to this plugin: refuses every other account before any body is read.
  app.addHook('onRequest', async function operatorOnly(request) {
    if (request.url.startsWith('/admin/logos')) requireOperator(request);
  });

  app.post('/admin/logos', async (request) => {
    const body = await readBody(request, { tmpDir: app.config.uploadDir, maxFileBytes: MAX_REFERENCE_BYTES });
    const details = await service.register({ brand: body.fields.brand, brandZh: body.fields.brand_zh, files: body.files });
    return brandDetailsView(details, request.ctx.requestId);
  });

  app.get('/admin/logos', async (request) => {
    return { results: (await service.list()).map(brandView), request_id: request.ctx.requestId };
  });

  app.get<{ Params: { brandId: string } }>('/admin/logos/:brandId', async (request) => {
    const id = parseBrandId(request.params.brandId);
    const details = await service.get(id);
    if (!details) throw new ApiError('notFound', `logo brand ${id} does not exist`);
    return brandDetailsView(details, request.ctx.requestId);
  });

  app.delete<{ Params: { brandId: string } }>('/admin/logos/:brandId', async (request, reply) => {
    await service.delete(parseBrandId(request.params.brandId));
    return reply.code(204).send();
  });

  // Artwork described with an older feature recipe is described again once, after an upgrade, in the background.
  let refreshing: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async function refreshStaleLogos() {
    refreshing = service.refreshStale().then(
      (n) => n && app.log.info({ references: n }, 'logo references re-described with the current feature recipe'),
      (err: unknown) => app.log.error({ err }, 'logo references could not be re-described'),
    );
  });
  app.addHook('onClose', async function awaitLogoRefresh() {
    await refreshing;
  });
};

export const logosDomain: Domain = { name: 'logos', routes };
