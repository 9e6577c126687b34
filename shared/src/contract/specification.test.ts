/* eslint-disable @typescript-eslint/no-explicit-any -- walking the generated JSON document */
import { describe, expect, it } from 'vitest';
import { serviceById } from '../catalogue.js';
import { ERROR, type ErrorKey } from '../errors.js';
import { ADMIN_OPERATIONS, OPERATIONS } from './index.js';
import { buildOpenApiDocument } from './openapi.js';
import { SPECIFICATION, SPECIFICATION_CODES } from './specification.table.js';

const spec = new Set<ErrorKey>(SPECIFICATION_CODES);
const label = (key: ErrorKey) => `${ERROR[key][0]}/${ERROR[key][1]}`;
const sorted = (keys: Iterable<ErrorKey>) => [...new Set(keys)].map(label).sort();
const FAMILY: Record<string, string> = { detect: 'detect', classify: 'classify', color: 'color', dressing: 'dressing' };

describe('the specification table and the contract', () => {
  it('every operation of the specification is a contract operation with its method and path, not marked as an extension', () => {
    for (const row of SPECIFICATION) {
      const operation = OPERATIONS.find((o) => o.id === row.id);
      expect(operation, row.id).toBeDefined();
      expect(`${operation!.method} ${operation!.path}`, row.id).toBe(`${row.method} ${row.path}`);
      expect(operation!.extension, row.id).toBeUndefined();
      expect(operation!.servedBy, row.id).toBe('backend');
    }
    expect(new Set(SPECIFICATION.map((r) => r.id)).size).toBe(SPECIFICATION.length);
  });

  it('every contract operation not marked as an extension is in the specification', () => {
    const unmarked = OPERATIONS.filter((o) => !o.extension && !o.admin).map((o) => o.id);
    expect(unmarked.filter((id) => !SPECIFICATION.some((r) => r.id === id))).toEqual([]);
  });

  it('each operation declares exactly the specification codes the table gives it (its own and the documented additions)', () => {
    for (const row of SPECIFICATION) {
      const declared = OPERATIONS.find((o) => o.id === row.id)!.errorCodes ?? [];
      expect(sorted(declared.filter((k) => spec.has(k))), row.id).toEqual(sorted([...row.errors, ...(row.extends?.codes ?? [])]));
    }
  });

  it('the table is a transcription: its codes are the specification’s, and an addition never repeats a given code', () => {
    for (const row of SPECIFICATION) {
      for (const key of [...row.errors, ...(row.extends?.codes ?? [])]) expect(spec.has(key), `${row.id} ${key}`).toBe(true);
      expect(row.errors.filter((k) => row.extends?.codes.includes(k)), row.id).toEqual([]);
      if (row.extends) expect(row.extends.why.length, row.id).toBeGreaterThan(10);
    }
  });

  it('any other code an operation declares is one of Iris’s own, never a specification code borrowed without a reason', () => {
    for (const operation of OPERATIONS.filter((o) => o.extension)) {
      for (const key of operation.errorCodes ?? []) expect(key in ERROR, `${operation.id} ${key}`).toBe(true);
    }
    const ids = new Set(SPECIFICATION.map((r) => r.id));
    for (const operation of OPERATIONS.filter((o) => ids.has(o.id))) {
      const row = SPECIFICATION.find((r) => r.id === operation.id)!;
      const allowed = new Set([...row.errors, ...(row.extends?.codes ?? [])]);
      for (const key of operation.errorCodes ?? []) expect(allowed.has(key) || !spec.has(key), `${operation.id} ${key}`).toBe(true);
    }
  });

  it('the service ids of each path are the catalogue’s services of that family, or the path’s own fixed id', () => {
    for (const row of SPECIFICATION) {
      const family = FAMILY[row.id];
      for (const id of row.serviceIds) {
        if (family) expect(serviceById(id)?.family, `${row.id} ${id}`).toBe(family);
        else expect(row.path, row.id).toContain(id);
      }
      if (family) expect(row.serviceIds.length, row.id).toBeGreaterThan(0);
    }
  });

  it('a code outside the specification’s error tables is in an Iris range (auth and gateway 1101+, quotas 3005+, internal 9xxx, analysis status-only)', () => {
    const iris = (Object.keys(ERROR) as ErrorKey[]).filter((k) => !spec.has(k));
    for (const key of iris) {
      const code = ERROR[key][1];
      expect(code >= 1101 && code <= 1199 || code >= 3005 && code <= 3099 || code >= 9000 && code <= 9999, key).toBe(true);
    }
  });
});

describe('the OpenAPI document and the specification', () => {
  const document = buildOpenApiDocument({ servers: [{ url: 'https://cn-east.example.com', description: 'cn-east' }] }) as Record<string, any>;

  it('lists exactly each operation’s declared codes', () => {
    for (const operation of [...OPERATIONS, ...ADMIN_OPERATIONS]) {
      const entry = document.paths[operation.path][operation.method];
      expect([...(entry.responses.default['x-error-codes'] ?? [])].sort(), operation.id).toEqual(sorted(operation.errorCodes ?? []));
    }
  });

  it('classify lists the image codes it answers, apply the specification’s three, search its 500/4001', () => {
    const codes = (path: string, method = 'post') => document.paths[path][method].responses.default['x-error-codes'];
    expect(codes('/classify/{service_id}')).toEqual(expect.arrayContaining(['400/400002', '400/400003', '400/400004']));
    expect(codes('/classify/{service_id}')).not.toContain('408/408');
    expect([...codes('/batch/_1000001/task/apply')].sort()).toEqual(['400/400009', '400/400010', '400/400011']);
    expect(codes('/search/{service_id}')).toContain('500/4001');
  });

  it('x-ca-version is a header parameter of every keyed operation, required as the specification says', () => {
    for (const operation of OPERATIONS.filter((o) => !o.public)) {
      const parameters = (document.paths[operation.path][operation.method].parameters ?? []) as { in: string; name: string; required?: boolean }[];
      const version = parameters.find((p) => p.in === 'header' && p.name === 'x-ca-version');
      expect(version, operation.id).toBeDefined();
    }
    const create = document.paths['/image_sets/_0000014'].post.parameters.find((p: any) => p.name === 'x-ca-version');
    expect(create.required).toBe(true);
    expect(create.schema.enum).toEqual(['1', '1.0']);
  });
});
