/**
 * Iris extension for browsing data sets (used by the web console): a set's records page by page with
 * their download state and failure reason, and thumbnails of the stored pictures. Read-only, and every
 * lookup is scoped to the calling account (the edge checks ownership first; this is the second check).
 *
 *   GET /iris/{image_sets|product_sets|training_sets}/{id}/records?page=0&count=24&status=failed
 *   GET /iris/{image_sets|product_sets|training_sets}/{id}/records/{record_id}/thumbnail?size=256
 *   GET /iris/{image_sets|product_sets|training_sets}/{id}/labels   (records per label: training sets)
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError, formatTime, operationById } from '@iris/shared';
import type { RequestContext } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { isBrowseKind, parseBrowseQuery, parseRecordId, parseThumbnailSize, type BrowseKind } from './set-records.params.js';
import { labelCounts, listRecords, recordBlob, resolveRecordSet } from './set-records.repo.js';
import { ThumbnailMaker } from './thumbnails.js';

function searchOf(request: FastifyRequest): URLSearchParams {
  const at = request.url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
}

export function notFound(kind: BrowseKind, id: string): ApiError {
  const what = kind === 'product_sets' ? 'product set' : kind === 'image_sets' ? 'image set' : 'training set';
  return new ApiError(kind === 'product_sets' ? 'productSetNotFound' : 'setNotFound', `${what} ${id} does not exist`);
}

const routes: FastifyPluginAsync = async (app) => {
  const thumbnails = new ThumbnailMaker(app.blobs);

  async function setOf(ctx: RequestContext, { kind, id }: { kind: string; id: string }): Promise<string> {
    if (!isBrowseKind(kind)) throw new ApiError('notFound', 'no such endpoint');
    const setId = await resolveRecordSet(app.db.pool, ctx.accountId, kind, id);
    if (!setId) throw notFound(kind, id);
    return setId;
  }

  app.get('/iris/:kind/:id/records', serve(operationById('listSetRecords'), async ({ params, ctx, request }) => {
    const query = parseBrowseQuery(searchOf(request));
    const setId = await setOf(ctx, params);
    const { total, counts, rows } = await listRecords(app.db.pool, setId, query);
    return {
      request_id: ctx.requestId,
      page: query.page,
      count: query.count,
      total,
      ...counts,
      results: rows.map((r) => ({ ...r, updated_at: formatTime(r.updated_at) })),
    };
  }));

  app.get('/iris/:kind/:id/labels', serve(operationById('getSetLabels'), async ({ params, ctx }) => ({
    request_id: ctx.requestId,
    results: await labelCounts(app.db.pool, await setOf(ctx, params)),
  })));

  app.get('/iris/:kind/:id/records/:record_id/thumbnail', serve(operationById('getRecordThumbnail'), async ({ params, ctx, request, reply }) => {
    const size = parseThumbnailSize(searchOf(request));
    const recordId = parseRecordId(params.record_id);
    const setId = await setOf(ctx, params);
    const blobKey = await recordBlob(app.db.pool, setId, recordId);
    if (!blobKey) throw new ApiError('setNotFound', `record ${recordId} has no stored picture in this set`);
    const etag = `"t${size}-${blobKey.slice(0, 32)}"`;
    reply.header('cache-control', 'private, max-age=86400').header('etag', etag).header('vary', 'x-ca-accesskeyid');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const image = await thumbnails.thumbnail(blobKey, size);
    if (!image) throw new ApiError('setNotFound', `record ${recordId} has no stored picture in this set`);
    return reply.type('image/jpeg').send(image);
  }));
};

export const setRecordsDomain: Domain = { name: 'set-records', routes };
