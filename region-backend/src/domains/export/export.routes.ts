/**
 * Iris extension: every record of a set as JSON lines, streamed however many there are (docs/usage-and-export.md).
 *
 *   GET /iris/{image_sets|product_sets|training_sets}/{id}/export?status=failed
 *
 * Scoped to the calling account like the record browsing it extends (the edge checks ownership first).
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { operationById } from '@iris/shared';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { resolveRecordSet } from '../set-records/set-records.repo.js';
import { notFound } from '../set-records/set-records.routes.js';
import { exportLines } from './export-lines.js';

const routes: FastifyPluginAsync = async (app) => {
  app.get('/iris/:kind/:id/export', serve(operationById('exportSetRecords'), async ({ params, query, ctx, reply }) => {
    const setId = await resolveRecordSet(app.db.pool, ctx.accountId, params.kind, params.id);
    if (!setId) throw notFound(params.kind, params.id);
    const lines = Readable.from(
      exportLines({ db: app.db.pool, setId, status: query.status ?? null, pageRows: app.config.usage.exportPageRows, onPage: (n) => app.metrics.exportRecords.inc(n) }),
      { objectMode: false },
    );
    app.metrics.exportsActive.inc();
    lines.once('close', () => app.metrics.exportsActive.dec());
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${params.kind}-${params.id.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl"`)
      .send(lines);
  }));
};

export const exportDomain: Domain = { name: 'export', routes };
