/**
 * Reconciliation of the edge's registry: `GET /internal/registry/{kind}/{id}` tells the edge whether the
 * caller's resource exists here. The edge asks when a create's answer never reached it (a backend timeout
 * left its row pending); the answer's registry report turns that row live, or retires it.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError, RESOURCE_ID_PATTERN, RESOURCE_KINDS, type ResourceKind } from '@iris/shared';
import { reportRegistry } from '../../http/request-context.js';
import type { Domain } from '../domain.js';

/** One row per live resource of the kind, scoped to the account ($1 id, $2 account). */
const EXISTS: Record<ResourceKind, string> = {
  image_set: `SELECT 1 FROM data_sets WHERE id = $1 AND account_id = $2 AND kind = 'image_set'`,
  training_set: `SELECT 1 FROM data_sets WHERE id = $1 AND account_id = $2 AND kind = 'training_set'`,
  product_set: 'SELECT 1 FROM product_sets WHERE id = $1 AND account_id = $2',
  search_service: 'SELECT 1 FROM search_services WHERE id = $1 AND account_id = $2',
  custom_service: `SELECT 1 FROM custom_services WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`,
  batch_task: 'SELECT 1 FROM batch_tasks WHERE id = $1 AND account_id = $2',
};

const isKind = (value: string): value is ResourceKind => (RESOURCE_KINDS as readonly string[]).includes(value);

const routes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { kind: string; id: string } }>('/internal/registry/:kind/:id', async (request, reply) => {
    const { kind, id } = request.params;
    if (!isKind(kind) || !RESOURCE_ID_PATTERN.test(id)) throw new ApiError('notFound', 'no such resource kind or id');
    const result = await app.db.pool.query(EXISTS[kind], [id, request.ctx.accountId]);
    const exists = (result.rowCount ?? 0) > 0;
    reportRegistry(reply, exists ? { live: [id] } : { deleted: [id] });
    return { kind, id, exists, request_id: request.ctx.requestId };
  });
};

export const registryDomain: Domain = { name: 'registry', routes };
