/**
 * `POST /admin/revocations` (operator only, sent by the edge when an account is disabled or a grant revoked):
 * `{account_id, service_id?, reason?}` → the account's queued and running work stops (revocation.repo.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { ApiError } from '@iris/shared';
import { requireOperator } from '../../http/internal-auth.hook.js';
import { readBody } from '../../http/request-body.js';
import type { Domain } from '../domain.js';
import { revokeQueuedWork } from './revocation.repo.js';

const body = z.object({
  account_id: z.coerce.number().int().min(1),
  service_id: z.string().regex(/^_\d{7}$/).optional(),
  reason: z.string().max(200).optional(),
});

const routes: FastifyPluginAsync = async (app) => {
  app.post('/admin/revocations', async (request) => {
    requireOperator(request);
    const parsed = body.safeParse((await readBody(request, { tmpDir: app.config.uploadDir })).fields);
    if (!parsed.success) throw new ApiError('badRequest', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { account_id: accountId, service_id: serviceId } = parsed.data;
    const reason = parsed.data.reason ?? (serviceId ? `revoked: the account may no longer use service ${serviceId}` : 'revoked: the account is disabled');
    const result = await revokeQueuedWork(app.db.pool, { accountId, serviceId, reason });
    request.log.info({ accountId, serviceId, ...result }, 'queued work revoked');
    return { ok: true, batch_tasks: result.batchTasks, downloads: result.downloads, trainings: result.trainings, request_id: request.ctx.requestId };
  });
};

export const revocationDomain: Domain = { name: 'revocation', routes };
