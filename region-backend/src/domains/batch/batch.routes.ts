/** `/batch/_1000001`: services, prepare, apply, revoke, info, list, and result downloads. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ApplyTask, PrepareTask, isAnalysisServiceId } from '@iris/shared';
import { inputOf } from '../../http/contract.hook.js';
import { requireGrantedService } from '../../http/edge-checks.js';
import { readBody } from '../../http/request-body.js';
import { mintedId, reportRegistry } from '../../http/request-context.js';
import { INPUT_FILE, isServedFile, verifyLink } from './batch-links.js';
import type { BatchServices } from './batch-services.js';
import type { BatchTaskService, Caller } from './batch-task.service.js';
import { taskDetails, taskSummary } from './batch-view.js';

const BASE = '/batch/_1000001';

type ById = FastifyRequest<{ Params: { id: string } }>;
type ByFile = FastifyRequest<{ Params: { id: string; file: string }; Querystring: { expires?: string; signature?: string } }>;

const caller = (request: FastifyRequest): Caller => ({ accountId: request.ctx.accountId, lang: request.ctx.lang, quotas: request.ctx.quotas });
const ok = (request: FastifyRequest, data: unknown) => ({ data, is_error: 0, request_id: request.ctx.requestId });

export async function batchRoutes(app: FastifyInstance, deps: { tasks: BatchTaskService; services: BatchServices }): Promise<void> {
  const { tasks, services } = deps;
  const body = (request: FastifyRequest) => readBody(request, { tmpDir: app.config.uploadDir });

  app.get(`${BASE}/services`, async (request) => ok(request, await services.list(request.ctx.accountId, request.ctx.forward.services ?? [])));

  app.post(`${BASE}/task/prepare`, async (request, reply) => {
    const input = inputOf(request, PrepareTask);
    const serviceId = input.service_id.trim();
    if (isAnalysisServiceId(serviceId)) requireGrantedService(request, serviceId, app.config.region, 'batchServiceUnknown', 'batchServiceUnsupported');
    const row = await tasks.prepare(caller(request), mintedId(request), input);
    reportRegistry(reply, { live: [row.id] });
    return ok(request, taskSummary(row, await tasks.viewContext(request.ctx.forward.publicBase)));
  });

  app.post(`${BASE}/task/apply`, async (request) => {
    const row = await tasks.apply(caller(request), inputOf(request, ApplyTask).task_id.trim());
    return ok(request, taskSummary(row, await tasks.viewContext(request.ctx.forward.publicBase)));
  });

  app.post(`${BASE}/task/revoke/:id`, async (request: ById) => {
    await tasks.revoke(caller(request), request.params.id);
    return ok(request, { code: 200001, args: [request.params.id] });
  });

  app.get(`${BASE}/task/info/:id`, async (request: ById) => {
    const row = await tasks.get(caller(request), request.params.id);
    return ok(request, taskDetails(row, await tasks.viewContext(request.ctx.forward.publicBase)));
  });

  app.get(`${BASE}/tasks`, async (request) => {
    const rows = await tasks.list(caller(request), (await body(request)).fields);
    const view = await tasks.viewContext(request.ctx.forward.publicBase);
    return ok(request, Object.fromEntries(rows.map((row) => [row.id, taskDetails(row, view)])));
  });

  app.get(`${BASE}/results/:id/:file`, async (request: ByFile, reply) => {
    const { id, file } = request.params;
    const task = await tasks.get(caller(request), id);
    if (!isServedFile(file)) throw new ApiError('notFound', `task ${id} has no file ${file}`);
    verifyLink(app.config.linkSecret, { accountId: task.account_id, taskId: id, file }, request.query);
    if (file !== INPUT_FILE && !task.result_files.includes(file)) throw new ApiError('notFound', `task ${id} has no file ${file}`);
    const full = path.join(tasks.taskDir(id), file);
    const size = await stat(full).then((s) => s.size, () => null);
    if (size === null) throw new ApiError('notFound', `the file ${file} of task ${id} is no longer stored`);
    return reply
      .type(file === INPUT_FILE ? 'text/plain; charset=utf-8' : 'application/x-ndjson')
      .header('content-length', size)
      .header('content-disposition', `attachment; filename="${id}-${file}"`)
      .send(createReadStream(full));
  });
}
