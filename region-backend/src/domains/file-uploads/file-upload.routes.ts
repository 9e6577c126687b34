/**
 * Iris extension: pictures from files (file-upload.service.ts).
 *
 *   POST /iris/{image_sets|product_sets}/{id}/files          multipart: `file`, optional name, meta, tags (product_id, price, keywords)
 *   POST /iris/{image_sets|product_sets}/{id}/files/lookup   JSON {files: [{name, sha256}]}: which are stored
 */
import type { FastifyPluginAsync } from 'fastify';
import { operationById } from '@iris/shared';
import { readBody } from '../../http/request-body.js';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { FileUploadService } from './file-upload.service.js';

const routes: FastifyPluginAsync = async (app) => {
  const maxBytes = app.config.images.fetch.maxBytes;
  const service = new FileUploadService({ pool: app.db.pool, blobs: app.blobWriter, decoder: app.decoder, images: app.config.images, base: app.config.publicEdgeUrl, maxBytes });

  app.post('/iris/:kind/:id/files', {
    ...serve(operationById('uploadSetFile'), async ({ input, params, ctx }) => ({ request_id: ctx.requestId, ...(await service.upload(ctx.accountId, params.kind, params.id, input, ctx.quotas)) })),
    // The body is read here first, with the picture's cap: a larger part is refused while it streams in.
    preHandler: async (request) => {
      await readBody(request, { tmpDir: app.config.uploadDir, maxFileBytes: maxBytes + 1 });
    },
  });

  app.post('/iris/:kind/:id/files/lookup', serve(operationById('lookupSetFiles'), async ({ input, params, ctx }) => ({
    request_id: ctx.requestId,
    results: await service.lookup(ctx.accountId, params.kind, params.id, input),
  })));
};

export const fileUploadsDomain: Domain = { name: 'file-uploads', routes };
