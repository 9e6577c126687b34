/* eslint-disable @typescript-eslint/no-explicit-any -- walking the generated JSON document */
import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS, OPERATIONS } from './index.js';
import { buildOpenApiDocument } from './openapi.js';

const servers = [
  { url: 'https://cn-east.example.com', description: 'cn-east (default)' },
  { url: 'https://ap-southeast.example.com', description: 'ap-southeast' },
];

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for a standard validator', async () => {
    const document = buildOpenApiDocument({ servers });
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const broken = structuredClone(document) as Record<string, any>;
    broken.paths['/search/{service_id}'].post.responses = { 200: { content: {} } };
    expect((await validate(broken as never)).valid).toBe(false);
    // Two full validations of ~100 operations: seconds on a loaded two-core machine.
  }, 60_000);

  it('has every operation of the contract, once, with its method', () => {
    const document = buildOpenApiDocument({ servers });
    const all = [...OPERATIONS, ...ADMIN_OPERATIONS];
    const ids = new Set(all.map((o) => o.id));
    expect(ids.size).toBe(all.length);
    for (const operation of all) {
      const entry = (document.paths?.[operation.path] as Record<string, { operationId?: string }> | undefined)?.[operation.method];
      expect(entry?.operationId, `${operation.method} ${operation.path}`).toBe(operation.id);
    }
  });

  it('names both regions as servers, the access-key header, the three error shapes and the extensions', () => {
    const document = buildOpenApiDocument({ servers }) as Record<string, any>;
    expect(document.servers).toEqual(servers);
    expect(document.components.securitySchemes.accessKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-ca-accesskeyid' });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['ResourceError', 'AnalysisError', 'BatchError']));
    const search = document.paths['/search/{service_id}'].post;
    expect(search.responses.default.content['application/json'].schema.$ref).toBe('#/components/schemas/ResourceError');
    expect(document.paths['/detect/{service_id}'].post.responses.default.content['application/json'].schema.$ref).toBe('#/components/schemas/AnalysisError');
    expect(document.paths['/batch/_1000001/task/prepare'].post.responses.default.description).toContain('400/400001');
    expect(document.paths['/product_search/{service_id}'].post['x-iris-extension']).toBe('released-clients');
    expect(document.paths['/batch/_1000001/results/{task_id}/{file}'].get['x-iris-extension']).toBe('iris');
    expect(document.paths['/image_sets/_0000014'].post['x-iris-extension']).toBeUndefined();
    expect(document.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('describes the operator API as admin, behind the bearer token scheme', () => {
    const document = buildOpenApiDocument({ servers }) as Record<string, any>;
    expect(document.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const adminPaths = Object.keys(document.paths).filter((p) => p.startsWith('/admin'));
    expect(adminPaths).toEqual(expect.arrayContaining(['/admin/health', '/admin/accounts', '/admin/accounts/{id}/keys', '/admin/accounts/{id}/quotas', '/admin/accounts/{id}/grants/{service_id}', '/admin/keys/{key_id}', '/admin/regions/{region}/revocations']));
    for (const path of adminPaths) {
      for (const entry of Object.values(document.paths[path]) as Record<string, any>[]) {
        expect(entry.security, path).toEqual([{ adminToken: [] }]);
        expect(entry['x-iris-admin'], path).toBe(true);
      }
    }
    expect(document.paths['/admin/accounts/{id}/quotas'].put.requestBody.content['application/json'].schema.properties).toHaveProperty('stored_bytes');
    expect(document.paths['/search/{service_id}'].post['x-iris-admin']).toBeUndefined();
  });
});
