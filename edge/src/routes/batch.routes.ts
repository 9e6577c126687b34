import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { proxy } from './proxy.handler.js';

const task = { owned: { kind: 'batch_task' } } as const;

/**
 * `/batch/_1000001`: every task id (path, `task_id` field of apply read through the contract, result downloads) must name a task of the
 * caller in this region, else 400/400011. The service list holds only the ready-made services the account is
 * granted here; prepare refuses another ready-made service with 400/400008 (400/400007 when the region does not
 * offer it). The daily task limit is the backend's (quotas travel in the context).
 */
export const batchRoutes = new Hono<AppEnv>()
  .all('/services', proxy({ grantedServices: true }))
  .all('/tasks', proxy())
  .post('/task/prepare', proxy({ operation: 'prepareBatchTask', create: { kind: 'batch_task' }, batchServiceField: 'service_id' }))
  .all('/task/apply', proxy({ operation: 'applyBatchTask', owned: { kind: 'batch_task', field: 'task_id' } }))
  .all('/task/info/:id', proxy(task))
  .all('/task/revoke/:id', proxy(task))
  .all('/results/:id/*', proxy(task));
