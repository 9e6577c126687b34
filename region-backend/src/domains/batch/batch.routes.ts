/** `/batch/_1000001`: services, prepare, apply, revoke, info, list, and result downloads. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, isAnalysisServiceId, operationById } from '@iris/shared';
import { requireGrantedService } from '../../http/edge-checks.js';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry, type RequestContext } from '../../http/request-context.js';
import { serve } from '../../http/serve.js';
import { INPUT_FILE, isServedFile, verifyLink } from './batch-links.js';
import type { BatchServices } from './batch-services.js';
import type { BatchTaskService, Caller } from './batch-task.service.js';
import { taskDetails, taskSummary } from './batch-view.js';

const BASE = '/batch/_1000001';

const caller = (ctx: RequestContext): Caller => ({ accountId: ctx.accountId, lang: ctx.lang, quotas: ctx.quotas });
const ok = <T>(ctx: RequestContext, data: T) => ({ data, is_error: 0 as const, request_id: ctx.requestId });

export async function batchRoutes(app: FastifyInstance, deps: { tasks: BatchTaskService; services: BatchServices }): Promise<void> {
  const { tasks, services } = deps;
  const body = (request: FastifyRequest) => readBody(request, { tmpDir: app.config.uploadDir });

  app.get(`${BASE}/services`, serve(operationById('listBatchServices'), async ({ ctx }) => ok(ctx, await services.list(ctx.accountId, ctx.forward.services ?? []))));

  app.post(`${BASE}/task/prepare`, serve(operationById('prepareBatchTask'), async ({ input, ctx, request, reply }) => {
    const serviceId = input.service_id.trim();
    if (isAnalysisServiceId(serviceId)) requireGrantedService(request, serviceId, app.config.region, 'batchServiceUnknown', 'batchServiceUnsupported');
    const row = await tasks.prepare(caller(ctx), mintedId(request), input);
    reportRegistry(reply, { live: [row.id] });
    return ok(ctx, taskSummary(row, await tasks.viewContext(ctx.forward.publicBase)));
  }));

  app.post(`${BASE}/task/apply`, serve(operationById('applyBatchTask'), async ({ input, ctx }) => {
    const row = await tasks.apply(caller(ctx), input.task_id.trim());
    return ok(ctx, taskSummary(row, await tasks.viewContext(ctx.forward.publicBase)));
  }));

  app.post(`${BASE}/task/revoke/:task_id`, serve(operationById('revokeBatchTask'), async ({ params, ctx }) => {
    await tasks.revoke(caller(ctx), params.task_id);
    return ok(ctx, { code: 200001 as const, args: [params.task_id] });
  }));

  app.get(`${BASE}/task/info/:task_id`, serve(operationById('getBatchTask'), async ({ params, ctx }) => {
    const row = await tasks.get(caller(ctx), params.task_id);
    return ok(ctx, taskDetails(row, await tasks.viewContext(ctx.forward.publicBase)));
  }));

  app.get(`${BASE}/tasks`, serve(operationById('listBatchTasks'), async ({ ctx, request }) => {
    const rows = await tasks.list(caller(ctx), (await body(request)).fields);
    const view = await tasks.viewContext(ctx.forward.publicBase);
    return ok(ctx, Object.fromEntries(rows.map((row) => [row.id, taskDetails(row, view)])));
  }));

  app.get(`${BASE}/results/:task_id/:file`, serve(operationById('getBatchFile'), async ({ params, query, ctx, reply }) => {
    const { task_id: id, file } = params;
    const task = await tasks.get(caller(ctx), id);
    if (!isServedFile(file)) throw new ApiError('notFound', `task ${id} has no file ${file}`);
    verifyLink(app.config.linkSecret, { accountId: task.account_id, taskId: id, file }, query);
    if (file !== INPUT_FILE && !task.result_files.includes(file)) throw new ApiError('notFound', `task ${id} has no file ${file}`);
    const full = path.join(tasks.taskDir(id), file);
    const size = await stat(full).then((s) => s.size, () => null);
    if (size === null) throw new ApiError('notFound', `the file ${file} of task ${id} is no longer stored`);
    return reply
      .type(file === INPUT_FILE ? 'text/plain; charset=utf-8' : 'application/x-ndjson')
      .header('content-length', size)
      .header('content-disposition', `attachment; filename="${id}-${file}"`)
      .send(createReadStream(full));
  }));
}
