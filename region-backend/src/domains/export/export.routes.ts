/**
 * Iris extension: every record of a set as JSON lines, streamed however many there are (docs/usage-and-export.md).
 *
 *   GET /iris/{image_sets|product_sets|training_sets}/{id}/export?status=failed
 *   GET /iris/{batch_tasks|search_services|custom_services}/{id}/state   (one JSON document for support)
 *
 * Scoped to the calling account like the record browsing it extends (the edge checks ownership first).
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError, formatTime, operationById } from '@iris/shared';
import { serve } from '../../http/serve.js';
import { batchFilesDir } from '../batch/batch.domain.js';
import type { Queryable } from '../data-sets/set.repo.js';
import type { Domain } from '../domain.js';
import { resolveRecordSet } from '../set-records/set-records.repo.js';
import { notFound } from '../set-records/set-records.routes.js';
import { exportLines } from './export-lines.js';
import { batchTaskState, customServiceState, searchServiceState, type StateParts } from './support-state.repo.js';


/** Times as the API writes them (`%Y-%m-%dT%H:%M:%SZ`). */
const withTimes = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Date ? formatTime(v) : v]));

const routes: FastifyPluginAsync = async (app) => {
  const filesDir = batchFilesDir(app.config);
  const STATE_READERS = {
    batch_tasks: (db: Queryable, accountId: number, id: string) => batchTaskState(db, accountId, id, (taskId) => path.join(filesDir, taskId)),
    search_services: searchServiceState,
    custom_services: customServiceState,
  };
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

  app.get('/iris/:kind/:id/state', serve(operationById('getSupportState'), async ({ params, ctx }) => {
    const state: StateParts | null = await STATE_READERS[params.kind](app.db.pool, ctx.accountId, params.id);
    if (!state) throw params.kind === 'batch_tasks' ? new ApiError('batchTaskUnknown', `task ${params.id} does not exist`) : new ApiError('serviceNotFound', `service ${params.id} does not exist`);
    return {
      request_id: ctx.requestId,
      kind: params.kind,
      id: params.id,
      generated_at: formatTime(new Date()),
      configuration: withTimes(state.configuration),
      counters: state.counters,
      recent_failures: state.recent_failures.map((f) => ({ ...f, at: f.at ? formatTime(f.at) : null })),
    };
  }));
};

export const exportDomain: Domain = { name: 'export', routes };
