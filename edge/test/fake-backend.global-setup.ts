/**
 * Two real HTTP servers on 127.0.0.1 standing in for the region backends (Node side of the test run).
 * Each verifies the edge's internal signature with `verifyInternal` and answers with what it received, so
 * tests in the Workers runtime can assert on the forwarded request. A test steers a response with the
 * `x-test-backend` request header (the edge forwards client headers): see `respond()`. Registry checks
 * (`/internal/registry/{kind}/{id}`) find every id except those starting with `gone`.
 * Bodies are checked against the signed binding as the real backend does (length, and SHA-256 when
 * bound): a mismatch answers 401/9004. Multipart bodies are also read by busboy (`busboy_fields`). A call
 * with an `x-test-probe: <id>` header leaves its outcome for `GET /__probe/<id>` (unsigned):
 * `complete`, `refused` (length or hash differs from the signed one) or `aborted` (the connection broke).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Busboy from '@fastify/busboy';
import type { TestProject } from 'vitest/node';
import { verifyInternal } from '@iris/shared';

const probes = new Map<string, { state: 'complete' | 'refused' | 'aborted'; length: number }>();

export const SECRETS = { 'cn-east': 'test-secret-cn-east', 'ap-southeast': 'test-secret-ap-southeast' } as const;

function readBody(req: IncomingMessage, probe: string | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let ended = false;
    const aborted = () => {
      if (ended) return;
      ended = true;
      if (probe) probes.set(probe, { state: 'aborted', length });
      reject(new Error('request aborted'));
    };
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      length += c.length;
    });
    req.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    req.on('error', aborted);
    req.on('close', aborted);
  });
}

/** Text fields as busboy (the real backend's parser) reads them; null when it fails the body. */
function busboyFields(body: Buffer, contentType: string): Promise<[string, string][] | null> {
  return new Promise((resolve) => {
    const fields: [string, string][] = [];
    try {
      const bb = new Busboy({ headers: { 'content-type': contentType }, limits: { fieldSize: 1024 * 1024, fields: 256, parts: 256 } });
      bb.on('field', (name: string, value: string) => fields.push([name, value]));
      bb.on('file', (_field: string, file: NodeJS.ReadableStream) => file.resume());
      bb.on('error', () => resolve(null));
      bb.on('finish', () => resolve(fields));
      bb.end(body);
    } catch {
      resolve(null);
    }
  });
}

async function respond(region: keyof typeof SECRETS, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const probe = header('x-test-probe');
  const body = await readBody(req, probe);
  const verification = await verifyInternal(SECRETS[region], { method: req.method ?? '', pathWithQuery: req.url ?? '', header });
  const context = verification.ok ? verification.context : undefined;
  const sha256 = createHash('sha256').update(body).digest('hex');
  const bound = context && (body.length !== (context.body?.length ?? 0) || (context.body?.sha256 !== undefined && context.body.sha256 !== sha256));
  if (probe) probes.set(probe, { state: bound ? 'refused' : 'complete', length: body.length });
  if (bound) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error_code: 9004, message: 'body differs from the signed one' }));
    return;
  }
  const contentType = header('content-type') ?? '';
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
    body_length: body.length,
    body_sha256: sha256,
    // Large uploads are compared by length and hash.
    body_base64: body.length > 1024 * 1024 ? '' : body.toString('base64'),
    busboy_fields: contentType.toLowerCase().startsWith('multipart/form-data') ? await busboyFields(body, contentType) : undefined,
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
    // Like a real backend: its own stages in Server-Timing, which the edge extends with its total.
    res.writeHead(status, { 'content-type': 'application/json', 'server-timing': 'backend;dur=1.0', ...extra });
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
    case 'many-chunks': {
      // A large answer in many small chunks: `many-chunks:<chunks>` of 1 KB each, byte i = i % 251.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' });
      const count = Number(arg ?? 1024);
      for (let i = 0; i < count; i++) {
        const piece = Buffer.alloc(1024); // a written buffer is not copied: one per write
        for (let j = 0; j < piece.length; j++) piece[j] = (i * 1024 + j) % 251;
        if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
      return;
    }
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
      const probed = /^\/__probe\/([\w-]+)$/.exec(req.url ?? '');
      if (probed) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(probes.get(probed[1]!) ?? { state: 'none' }));
        return;
      }
      respond(region, req, res).catch((err: unknown) => {
        if (res.destroyed) return;
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
