/**
 * The backend and the contract: every route is bound by value to one operation of the contract and every
 * backend operation of the contract is a route; inputs are refused with the operation's codes; answers are checked against the response schemas.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BatchServicesResponse,
  CustomService,
  CustomServiceResponse,
  DataSet,
  DataSetList,
  DataSetResponse,
  OPERATIONS,
  ProductSetResponse,
  operationById,
  ResourceError,
  SearchServiceResponse,
  newResourceId,
  SPECIFICATION,
  routeKey,
  routePattern,
} from '@iris/shared';
import { registerContract } from '../src/http/contract.hook.js';
import { registerErrorHandling } from '../src/http/error-handler.js';
import { serve } from '../src/http/serve.js';
import { dataSetObject } from '../src/domains/data-sets/set-view.js';
import { customServiceObject } from '../src/domains/custom-training/custom-service-view.js';
import { startTestBackend, type TestBackend } from './support/test-app.js';

/** The answer is exactly what the schema describes: nothing missing, nothing the schema would drop. */
function expectExactly(schema: z.ZodTypeAny, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  expect(parsed.success && parsed.data).toEqual(body);
}

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({}, { workers: false });
});
afterAll(async () => {
  await backend?.close();
});

describe('routes and the contract', () => {
  it('every route serves exactly one operation, bound by value, and every backend operation has a route', () => {
    const routes = backend.app.boundRoutes;
    expect(routes.length).toBeGreaterThan(40);
    // The one route without an operation refuses calls to analysis services that do not exist.
    expect(routes.filter((r) => !r.operation).map((r) => `${r.method} ${r.url}`)).toEqual(['POST /:word/:service_id']);
    const bound = routes.filter((r) => r.operation);
    for (const route of bound) {
      expect(route.operation!.servedBy, `${route.method} ${route.url}`).toBe('backend');
      expect(routeKey(route.method, route.url), route.operation!.id).toBe(routeKey(route.operation!.method, routePattern(route.operation!)));
      expect(OPERATIONS, route.operation!.id).toContain(route.operation);
    }
    const served = new Set(bound.map((r) => r.operation!.id));
    expect(OPERATIONS.filter((o) => o.servedBy === 'backend' && !served.has(o.id)).map((o) => o.id)).toEqual([]);
    // One route per answer shape: only the analysis path carries several routes (one per envelope), each its own.
    const perPath = new Map<string, string[]>();
    for (const r of bound) perPath.set(`${r.method} ${r.url}`, [...(perPath.get(`${r.method} ${r.url}`) ?? []), r.operation!.id]);
    const shared = [...perPath].filter(([, ids]) => ids.length > 1);
    expect(shared).toEqual([['POST /:word/:service_id', ['detect', 'classify', 'classify', 'color', 'dressing']]]);
  });

  it('every operation of the specification table is served by a bound route of the backend', () => {
    const served = new Set(backend.app.boundRoutes.flatMap((r) => (r.operation ? [r.operation.id] : [])));
    expect(SPECIFICATION.map((row) => row.id).filter((id) => !served.has(id))).toEqual([]);
  });

  it('a route that is not bound to an operation, or bound to another path’s operation, stops start-up', async () => {
    const app = Fastify({ logger: false });
    registerContract(app);
    expect(() => app.get('/image_sets/_0000014/:image_set_id/nothing', async () => ({}))).toThrow(/not bound to a contract operation/);
    expect(() => app.get('/image_sets/_0000014/:image_set_id', serve(operationById('getProductSet'), async () => { throw new Error('never'); }))).toThrow(/bound to getProductSet/);
    expect(() => app.get('/image_sets/_0000014/:id', serve(operationById('getImageSet'), async () => { throw new Error('never'); }))).toThrow(/image_set_id/);
    await app.close();
  });

  it('an answer that breaks its response schema is an internal error, not a silent drift', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    registerContract(app);
    app.get('/get_image_sets/_0000014', serve(operationById('listImageSets'), async () => ({ results: 'not a list' }) as never));
    const res = await app.inject({ method: 'GET', url: '/get_image_sets/_0000014' });
    expect(res.statusCode).toBe(500);
    await app.close();
  });
});

describe('requests through the contract', () => {
  it('refuses a missing name with the operation’s code (image set 5004, product set 1007)', async () => {
    const imageSet = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: newResourceId(), payload: { description: 'no name' } });
    expect(imageSet.statusCode).toBe(400);
    expectExactly(ResourceError, imageSet.json());
    expect(imageSet.json().error_code).toBe(5004);
    const productSet = await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: newResourceId(), payload: { description: 'd' } });
    expect([productSet.statusCode, productSet.json().error_code]).toEqual([400, 1007]);
  });

  it('takes the same body as JSON with string numbers, as a form, or as multipart', async () => {
    const json = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: newResourceId(), payload: { name: 'json', description: 12 } });
    expectExactly(DataSetResponse, json.json());
    expect(json.json().description).toBe('12');
    const form = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: newResourceId(), payload: 'name=form', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectExactly(DataSetResponse, form.json());
    expect(form.json().name).toBe('form');
  });
});

describe('answers match the response schemas', () => {
  it('image sets: create, get, list', async () => {
    const id = newResourceId();
    const created = await backend.call({ method: 'POST', url: '/image_sets/_0000014', resourceId: id, payload: { name: 'a set', description: 'd' } });
    expectExactly(DataSetResponse, created.json());
    expectExactly(DataSetResponse, (await backend.call({ method: 'GET', url: `/image_sets/_0000014/${id}` })).json());
    const list = await backend.call({ method: 'GET', url: '/get_image_sets/_0000014' });
    expectExactly(DataSetList, list.json());
    expect(list.json().results.length).toBeGreaterThan(0);
  });

  it('product sets and search services', async () => {
    const setId = newResourceId();
    const set = await backend.call({ method: 'POST', url: '/product_sets/_0000178', resourceId: setId, payload: { name: 'p', description: 'd' } });
    expectExactly(ProductSetResponse, set.json());
    const service = await backend.call({ method: 'POST', url: `/product_sets/_0000178/${setId}/services`, resourceId: newResourceId(), payload: { name: 's', scenario: 'fashion_v3' } });
    expectExactly(SearchServiceResponse, service.json());
    expect(service.json().type).toBe(1);
  });

  it('batch services', async () => {
    expectExactly(BatchServicesResponse, (await backend.call({ method: 'GET', url: '/batch/_1000001/services' })).json());
  });

  it('the view mappers produce exactly the schemas’ fields', () => {
    const now = new Date('2024-05-01T00:00:00Z');
    const row = { id: 's1', account_id: '7', name: 'n', description: 'd', created_at: now, modified_at: now, n_items: 3, n_downloaded: 1, n_failed: 1 };
    expectExactly(DataSet, dataSetObject(row as never));
    const service = {
      id: 'c1', account_id: '7', name: 'n', description: 'd', scenario: 'classifier', status: 'failed', training_set_id: 't1', created_at: now, updated_at: now,
      message: 'too few images', validation_accuracy: 0.91234, label_counts: { cat: 50 }, progress: 1, stage: 'failed',
    };
    expectExactly(CustomService, customServiceObject(service as never));
    // One service's answer carries the confusion matrix (null until trained); list results leave it out.
    const trained = { ...service, status: 'running', stage: 'done', confusion_matrix: { labels: ['cat', 'dog'], counts: [[9, 1], [2, 8]] } };
    expectExactly(CustomServiceResponse, customServiceObject(trained as never, 'r1'));
    expect(customServiceObject(trained as never, 'r1').confusion_matrix).toEqual(trained.confusion_matrix);
    expect(customServiceObject(trained as never)).not.toHaveProperty('confusion_matrix');
    expectExactly(CustomServiceResponse, customServiceObject(service as never, 'r2'));
    expect(customServiceObject(service as never, 'r2').confusion_matrix).toBeNull();
  });
});
