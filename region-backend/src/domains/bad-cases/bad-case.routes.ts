import type { FastifyPluginAsync } from 'fastify';
import { ApiError, formatTime, operationById } from '@iris/shared';
import { readBody } from '../../http/request-body.js';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { insertBadCase } from './bad-case.repo.js';

const routes: FastifyPluginAsync = async (app) => {
  /** Report a bad result: POST /bad_cases/_0000204 with service_id, request_id, description?, details?. */
  app.post('/bad_cases/_0000204', serve(operationById('reportBadCase'), async ({ request }) => {
    const { fields } = await readBody(request, { tmpDir: app.config.uploadDir });
    const serviceId = fields.service_id?.trim();
    const reportedRequestId = fields.request_id?.trim();
    if (!serviceId || !reportedRequestId) throw new ApiError('invalidData', 'service_id and request_id are required');
    if (serviceId.length > 128 || reportedRequestId.length > 128) throw new ApiError('invalidData', 'service_id or request_id too long');
    const limit = request.ctx.quotas.dailyBadCases;
    const row = await insertBadCase(app.db.pool, {
      accountId: request.ctx.accountId,
      serviceId,
      requestId: reportedRequestId,
      description: (fields.description ?? '').slice(0, 4096),
      details: (fields.details ?? '').slice(0, 65536),
    }, limit);
    if (!row) throw new ApiError('badCaseQuota', `at most ${limit} bad-case reports a day`);
    return {
      id: String(row.id),
      service_id: row.service_id,
      reported_request_id: row.request_id,
      description: row.description,
      details: row.details,
      status: row.status,
      created_at: formatTime(row.created_at),
      request_id: request.ctx.requestId,
    };
  }));
};

export const badCasesDomain: Domain = { name: 'bad-cases', routes };
