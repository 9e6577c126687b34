/**
 * Calls of the soak's accounts to the edge over node:http on loopback: signed or unsigned, a body sent whole,
 * streamed without a length, or cut off mid-way (the client drops the connection). Every call is bounded in
 * time and answers what the soak counts: the status, the error code and the time taken.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { stringToSign } from '../../edge/src/auth/signed-string.js';

export interface SoakKey {
  keyId: string;
  secret: string;
  /** Sign every call (the key is set to require signatures). */
  signs: boolean;
}

export type Fields = Record<string, string>;

export interface Multipart {
  fields?: Fields;
  file?: { field: string; name: string; bytes: Buffer; type?: string };
}

export interface CallRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  key: SoakKey;
  /** Text fields the edge reads (signed) when the body is a form. */
  form?: Fields;
  json?: unknown;
  multipart?: Multipart;
  /** Send the body as chunks without a content-length. */
  chunked?: boolean;
  /** Send a made-up signature instead of the right one. */
  wrongSignature?: boolean;
  /** Write this many bytes of the body, then drop the connection. */
  abortAfterBytes?: number;
  /** The Host header, which selects the region (`ap-southeast.localhost`); the edge's own by default. */
  host?: string;
  /** No key headers at all (a signed result link). */
  bare?: boolean;
}

/** `status` 0: no answer (the call was aborted by the caller, or the connection failed or timed out). */
export interface CallResult {
  status: number;
  code: number | undefined;
  ms: number;
  body: string;
  error?: string;
  /** The answer's `Server-Timing` (the backend's stages and the edge's total). */
  serverTiming?: string;
  /** Sent again once: the first attempt went out on a kept-alive connection the server had just closed. */
  staleConnectionRetry?: boolean;
}

const CALL_TIMEOUT_MS = 120_000;
const CHUNK = 256 * 1024;

export function multipartBody(parts: Multipart): { body: Buffer; contentType: string } {
  const boundary = `----irisSoak${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(parts.fields ?? {})) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (parts.file) {
    const { field, name, bytes, type = 'image/jpeg' } = parts.file;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`), bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The released clients' signature (docs/edge.md): headers and text parameters, the JSON body text appended. */
function signatureHeaders(request: CallRequest, query: URLSearchParams, jsonText: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ca-accesskeyid': request.key.keyId,
    'x-ca-version': '1',
    'x-ca-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-ca-signaturenonce': randomBytes(16).toString('hex'),
    requestmethod: request.method,
  };
  const params = [...query.entries(), ...Object.entries(request.form ?? request.multipart?.fields ?? {})];
  const text = stringToSign({ headers, params, jsonBody: jsonText });
  const signature = createHmac('sha1', request.key.secret).update(text, 'utf8').digest('base64');
  return { ...headers, 'x-ca-signature': request.wrongSignature ? randomBytes(20).toString('base64') : signature };
}

function encodeBody(request: CallRequest): { body: Buffer | null; contentType?: string; jsonText: string | null } {
  if (request.json !== undefined) {
    const jsonText = JSON.stringify(request.json);
    return { body: Buffer.from(jsonText), contentType: 'application/json', jsonText };
  }
  if (request.form) return { body: Buffer.from(new URLSearchParams(request.form).toString()), contentType: 'application/x-www-form-urlencoded', jsonText: null };
  if (request.multipart) return { ...multipartBody(request.multipart), jsonText: null };
  return { body: null, jsonText: null };
}

/** Resolves when the request can take more body, or is gone. */
function drainedOrClosed(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

function errorCode(text: string): number | undefined {
  try {
    const answer = JSON.parse(text) as { error_code?: unknown; data?: { error_code?: unknown } };
    const code = answer.data?.error_code ?? answer.error_code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One call. A call that went out on a kept-alive connection the server closed at the same moment fails before
 * any answer (`req.reusedSocket`, Node's documented case); it never reached the edge, so it is sent once more on
 * a new connection, as HTTP clients do, and marked.
 */
export async function callEdge(edgeUrl: string, request: CallRequest): Promise<CallResult> {
  const first = await callOnce(edgeUrl, request);
  if (!first.reusedSocketFailure || request.abortAfterBytes !== undefined) return first;
  return { ...(await callOnce(edgeUrl, request)), staleConnectionRetry: true };
}

async function callOnce(edgeUrl: string, request: CallRequest): Promise<CallResult & { reusedSocketFailure?: boolean }> {
  const url = new URL(request.path, edgeUrl);
  const { body, contentType, jsonText } = encodeBody(request);
  const headers: Record<string, string> = request.bare
    ? {}
    : request.key.signs || request.wrongSignature
      ? signatureHeaders(request, url.searchParams, jsonText)
      : { 'x-ca-accesskeyid': request.key.keyId, 'x-ca-version': '1' };
  if (request.host) headers.host = `${request.host}:${url.port}`;
  if (contentType) headers['content-type'] = contentType;
  if (body && !request.chunked) headers['content-length'] = String(body.length);
  const started = performance.now();
  const done = (status: number, text: string, error?: string, serverTiming?: string): CallResult => ({
    status, code: errorCode(text), ms: performance.now() - started, body: text, ...(error ? { error } : {}), ...(serverTiming ? { serverTiming } : {}),
  });
  return new Promise<CallResult>((resolve) => {
    let answered = false;
    const req = http.request(url, { method: request.method, headers, timeout: CALL_TIMEOUT_MS }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const timing = res.headers['server-timing'];
      res.on('end', () => resolve(done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), undefined, Array.isArray(timing) ? timing.join(', ') : timing)));
      res.on('error', (err) => resolve(done(0, '', err.message)));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve({ ...done(0, '', err.message), ...(req.reusedSocket && !answered ? { reusedSocketFailure: true } : {}) }));
    if (!body) return void req.end();
    const limit = request.abortAfterBytes ?? body.length;
    void (async () => {
      for (let offset = 0; offset < limit && !req.destroyed; offset += CHUNK) {
        const slice = body.subarray(offset, Math.min(limit, offset + CHUNK));
        if (!req.write(slice)) await drainedOrClosed(req);
      }
      if (request.abortAfterBytes === undefined) req.end();
      else req.destroy(new Error('aborted by the caller'));
    })();
  });
}
