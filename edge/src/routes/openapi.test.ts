import { describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS, OPERATIONS, SPECIFICATION } from '@iris/shared';
import { createApp } from '../app.js';
import { call, callJson } from '../../test/helpers.js';
import { regionServers } from './openapi.routes.js';

type Document = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, { operationId: string }>> };

/** `/image_sets/_0000014/{image_set_id}` and `/image_sets/_0000014/:id` compare equal. */
const shape = (path: string) => path.replace(/:[A-Za-z_]\w*(\{.*?\}+)?|\{[^}]+\}/g, ':p').replace(/\/+$/, '') || '/';

describe('/openapi.json and /docs', () => {
  it('publishes the contract as OpenAPI 3.1 without an access key, with both regions as servers', async () => {
    const res = await callJson<Document>('/openapi.json', { host: 'ap-southeast.localhost:8787' });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers.map((s) => s.url)).toEqual(['http://cn-east.localhost:8787', 'http://ap-southeast.localhost:8787']);
    const operations = Object.values(res.body.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId));
    expect(operations.sort()).toEqual([...OPERATIONS, ...ADMIN_OPERATIONS].map((o) => o.id).sort());
  });

  it('names configured region hosts as servers', () => {
    const hosts = new Map([['api.example.com', 'cn-east' as const], ['hk.example.com', 'ap-southeast' as const]]);
    expect(regionServers('https://hk.example.com/openapi.json', { regionHosts: hosts }).map((s) => s.url)).toEqual(['https://api.example.com', 'https://hk.example.com']);
    expect(regionServers('http://127.0.0.1:8787/openapi.json', { regionHosts: new Map() }).map((s) => s.url)).toEqual(['http://cn-east.localhost:8787', 'http://ap-southeast.localhost:8787']);
  });

  it('serves the reference page, which loads the document and the bundled assets', async () => {
    const res = await call('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain("url: '/openapi.json'");
    expect(html).toContain('/docs/swagger-ui-bundle.js');
  });
});

describe('edge routes and the contract', () => {
  const routes = createApp().routes.map((r) => ({ method: r.method, path: r.path }));

  it('every operation the edge answers itself is a route of the Worker, and the reverse', () => {
    const edgeOperations = OPERATIONS.filter((o) => o.servedBy === 'edge');
    for (const operation of edgeOperations) {
      const path = operation.path.replace(/\{(\w+)\}/g, ':$1');
      expect(routes.some((r) => r.method === operation.method.toUpperCase() && r.path === path), `${operation.method} ${operation.path}`).toBe(true);
    }
    // Routes that are neither admin, nor forwarded (wildcards, middleware), nor public proxies are edge operations;
    // a fixed path the backend serves (`/iris/usage`) is a proxy of its operation.
    const own = routes.filter((r) => r.method === 'GET' && !r.path.startsWith('/admin') && !r.path.includes('*') && !r.path.includes(':'));
    const forwarded = (path: string) => OPERATIONS.some((o) => o.servedBy === 'backend' && o.method === 'get' && o.path === path);
    for (const route of own.filter((r) => !forwarded(r.path))) expect(edgeOperations.some((o) => o.path === route.path), route.path).toBe(true);
  });

  it('every operation of the specification table has a Worker route of its own (not only the catch-all)', () => {
    const matcher = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]\w*(\{.*?\}+)?/g, '[^/]+').replace(/\*/g, '.*').replace(/\/+$/, '')}/?$`);
    const own = routes.filter((r) => !r.path.startsWith('/admin') && r.path !== '*' && r.path !== '/*');
    const missing = SPECIFICATION.filter((row) => {
      const sample = row.path.replace(/\{[^}]+\}/g, 'x1');
      return !own.some((r) => (r.method === 'ALL' || r.method === row.method.toUpperCase()) && matcher(r.path).test(sample));
    });
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('every concrete public route of the Worker leads to an operation of the contract', () => {
    // A prefix alone forwards whatever follows it so that the backend answers its own 404.
    const fallthrough = ['/custom_training/_0000194'];
    const publicRoutes = routes.filter((r) => !r.path.startsWith('/admin') && !r.path.includes('*') && r.path !== '/' && !fallthrough.includes(r.path));
    // A contract parameter matches any one segment of a Worker route (`/iris/{kind}/...` covers `/iris/image_sets/...`).
    const pattern = (path: string) => new RegExp(`^${shape(path).replace(/:p/g, '[^/]+')}$`);
    const contract = OPERATIONS.flatMap((o) => [o.path, ...(o.route ? [o.route] : [])].map((path) => ({ method: o.method.toUpperCase(), path: pattern(path) })));
    const unknown = publicRoutes.filter((r) => !contract.some((o) => o.path.test(shape(r.path)) && (r.method === 'ALL' || r.method === o.method)));
    expect(unknown).toEqual([]);
  });
});

describe('the admin API and the contract', () => {
  const routes = createApp().routes.filter((r) => r.path.startsWith('/admin')).map((r) => ({ method: r.method, path: shape(r.path) }));
  // `use()` middleware and the catch-all 404 are `ALL /admin/*`; the region forward is a wildcard per region.
  const concrete = routes.filter((r) => r.method !== 'ALL');
  const forwards = routes.filter((r) => r.method === 'ALL' && r.path !== '/admin/*');
  const covers = (route: { method: string; path: string }, operation: (typeof ADMIN_OPERATIONS)[number]) => {
    const path = shape(operation.path);
    if (route.method === 'ALL') return route.path.endsWith('/*') && path.startsWith(route.path.slice(0, -1));
    return route.method === operation.method.toUpperCase() && route.path === path;
  };

  it('has a schema for every admin route of the Worker', () => {
    expect(concrete.length).toBeGreaterThan(10);
    const without = concrete.filter((r) => !ADMIN_OPERATIONS.some((o) => covers(r, o)));
    expect(without).toEqual([]);
    for (const forward of forwards) expect(ADMIN_OPERATIONS.some((o) => covers(forward, o)), `${forward.path} has no operation`).toBe(true);
  });

  it('has a route for every admin schema', () => {
    const without = ADMIN_OPERATIONS.filter((o) => !routes.some((r) => r.path !== '/admin/*' && covers(r, o))).map((o) => `${o.method} ${o.path}`);
    expect(without).toEqual([]);
    expect(ADMIN_OPERATIONS.every((o) => o.admin && o.path.startsWith('/admin/'))).toBe(true);
  });
});

describe('edge log lines', () => {
  it('write one JSON line per call with the request_id the caller sees and the account', async () => {
    const { newAccount, keyHeaders } = await import('../../test/helpers.js');
    const account = await newAccount();
    const lines: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    let res: Response;
    try {
      res = await call('/get_image_sets/_0000014', { headers: keyHeaders(account) });
    } finally {
      console.log = original;
    }
    const requestId = res.headers.get('x-request-id');
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === requestId);
    expect(line).toMatchObject({ account: account.accountId, region: 'cn-east', method: 'GET', path: '/get_image_sets/_0000014', status: res.status });
  });
});
