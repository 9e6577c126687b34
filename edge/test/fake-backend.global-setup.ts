/**
 * Two real HTTP servers on 127.0.0.1 standing in for the region backends (Node side of the test run).
 * Each verifies the edge's internal signature with `verifyInternal` and answers with what it received, so
 * tests in the Workers runtime can assert on the forwarded request. A test steers a response with the
 * `x-test-backend` request header (the edge forwards client headers): see `respond()`. Registry checks
 * (`/internal/registry/{kind}/{id}`) find every id except those starting with `gone`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { verifyInternal } from '@iris/shared';

export const SECRETS = { 'cn-east': 'test-secret-cn-east', 'ap-southeast': 'test-secret-ap-southeast' } as const;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function respond(region: keyof typeof SECRETS, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const verification = await verifyInternal(SECRETS[region], { method: req.method ?? '', pathWithQuery: req.url ?? '', header });
  const context = verification.ok ? verification.context : undefined;
  const echo = {
    request_id: context?.requestId ?? 'unverified',
    backend: region,
    verified: verification.ok,
    reason: verification.ok ? undefined : verification.reason,
    account: verification.ok ? verification.accountId : undefined,
    context,
    method: req.method,
    url: req.url,
    headers: req.headers,
    body_base64: body.toString('base64'),
  };
  // Readiness is open (no signature), like the real backend's.
  if (req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: true, region, checks: { database: { ok: true } } }));
    return;
  }
  const registryCheck = verification.ok && /^\/internal\/registry\/[a-z_]+\/([a-z0-9]+)$/.exec(req.url ?? '');
  if (registryCheck) {
    const id = registryCheck[1]!;
    const exists = !id.startsWith('gone');
    res.writeHead(200, { 'content-type': 'application/json', 'x-iris-registry': JSON.stringify(exists ? { live: [id] } : { deleted: [id] }) });
    res.end(JSON.stringify({ ...echo, exists }));
    return;
  }
  const mode = header('x-test-backend') ?? '';
  const colon = mode.indexOf(':');
  const [action, arg] = colon === -1 ? [mode, undefined] : [mode.slice(0, colon), mode.slice(colon + 1)];
  if (action === 'slow') await new Promise((r) => setTimeout(r, Number(arg)));
  const send = (status: number, payload: unknown, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...extra });
    res.end(JSON.stringify(payload));
  };
  switch (action) {
    case 'html':
      res.writeHead(Number(arg ?? 500), { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>');
      return;
    case 'json-error':
      send(Number(arg ?? 400), { error_code: 5001, message: 'backend refused', request_id: echo.request_id });
      return;
    case 'no-content':
      res.writeHead(204, { 'x-iris-registry': JSON.stringify({ deleted: arg ? [arg] : [] }) });
      res.end();
      return;
    case 'no-confirm':
      send(200, echo);
      return;
    case 'chunked':
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.write(JSON.stringify(echo).slice(0, 10));
      res.end(JSON.stringify(echo).slice(10));
      return;
    case 'registry':
      send(200, echo, { 'x-iris-registry': arg ?? '' });
      return;
  }
  const live: Record<string, string> = context?.resourceId ? { 'x-iris-registry': JSON.stringify({ live: [context.resourceId] }) } : {};
  send(200, echo, live);
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export interface FakeBackends {
  urls: Record<keyof typeof SECRETS, string>;
  /** A port that was just released: connections to it are refused. */
  closedUrl: string;
  close(): Promise<void>;
}

export async function startFakeBackends(): Promise<FakeBackends> {
  const servers = (['cn-east', 'ap-southeast'] as const).map((region) =>
    createServer((req, res) => {
      respond(region, req, res).catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    }),
  );
  const [cnPort, apPort] = await Promise.all(servers.map(listen));
  const closed = createServer();
  const closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
  return {
    urls: { 'cn-east': `http://127.0.0.1:${cnPort}`, 'ap-southeast': `http://127.0.0.1:${apPort}` },
    closedUrl: `http://127.0.0.1:${closedPort}`,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}

export default async function setup(project: TestProject) {
  const backends = await startFakeBackends();
  project.provide('backendCnEast', backends.urls['cn-east']);
  project.provide('backendApSoutheast', backends.urls['ap-southeast']);
  project.provide('closedBackend', backends.closedUrl);
  return backends.close;
}

declare module 'vitest' {
  export interface ProvidedContext {
    backendCnEast: string;
    backendApSoutheast: string;
    closedBackend: string;
  }
}
