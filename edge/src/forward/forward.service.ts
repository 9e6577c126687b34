/**
 * Forwards a call to its region's backend (docs/architecture.md, "Edge → backend contract"): same method,
 * path (trailing slashes removed), query, raw body bytes and content type, plus the internal signature
 * headers. 502 when the backend cannot be reached, 504 when it does not answer in time.
 */
import { ApiError, signInternal, type ForwardContext, type RegionId } from '@iris/shared';
import type { RegionBackend } from '../config.js';
import type { StreamedUpload } from '../http/streamed-upload.js';
import { normaliseBackendResponse, type BackendAnswer } from './backend-response.js';
import { http1Request } from './http1-client.js';

const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'trailer', 'content-length', 'accept-encoding', 'expect']);

/** The caller's credentials stay at the edge: backends learn the account from the signed context only. */
function isCredential(name: string): boolean {
  return name.startsWith('x-ca-') || name === 'authorization' || name === 'cookie' || name === 'requestmethod';
}

export interface ForwardRequest {
  region: RegionId;
  backend: RegionBackend;
  timeoutMs: number;
  method: string;
  /** Path and query as they go on the wire, e.g. `/search/abc?count=3`. */
  pathWithQuery: string;
  /** The caller's request headers (copied except hop-by-hop, x-iris-* and Cloudflare's cf-* headers). */
  headers: Headers;
  /** Exact bytes (bound by length and SHA-256), or an upload streamed on (bound by its length and the nonce). */
  body: Uint8Array | StreamedUpload | null;
  accountId: number;
  context: ForwardContext;
  /** Public host and scheme of the call, passed on as x-forwarded-host / x-forwarded-proto. */
  publicUrl?: URL;
}

export function backendUrl(backend: RegionBackend, pathWithQuery: string): URL {
  return new URL(backend.url!.replace(/\/+$/, '') + pathWithQuery);
}

function forwardHeaders(req: ForwardRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of req.headers) {
    if (HOP_HEADERS.has(name) || isCredential(name) || name.startsWith('x-iris-') || name.startsWith('cf-') || name.startsWith('proxy-')) continue;
    headers.append(name, value);
  }
  headers.set('accept-encoding', 'identity');
  const clientIp = req.headers.get('cf-connecting-ip');
  if (clientIp) headers.set('x-forwarded-for', clientIp);
  if (req.publicUrl) {
    headers.set('x-forwarded-host', req.publicUrl.host);
    headers.set('x-forwarded-proto', req.publicUrl.protocol.replace(':', ''));
  }
  return headers;
}

export async function forwardToBackend(req: ForwardRequest): Promise<BackendAnswer> {
  const { backend } = req;
  if (!backend.url || !backend.secret) throw new ApiError('backendUnavailable', `region ${req.region} has no backend configured`);
  let target: URL;
  try {
    target = backendUrl(backend, req.pathWithQuery);
  } catch {
    throw new ApiError('backendUnavailable', `region ${req.region} has an invalid backend URL`);
  }
  const method = req.method.toUpperCase();
  const headers = forwardHeaders(req);
  const upload = req.body instanceof Uint8Array || req.body === null ? undefined : req.body;
  const bytes = upload ? null : (req.body as Uint8Array | null);
  const signed = await signInternal(backend.secret, {
    method,
    pathWithQuery: target.pathname + target.search,
    accountId: req.accountId,
    context: req.context,
    body: upload ? { length: upload.length } : bytes,
  });
  for (const [name, value] of Object.entries(signed)) headers.set(name, value);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  // A failed check of a streamed upload (its signature) aborts the call and is the answer.
  let refusal: unknown;
  upload?.verdict().catch((err: unknown) => {
    refusal = err;
    controller.abort();
  });
  try {
    const bodyOnGet = (method === 'GET' || method === 'HEAD') && bytes !== null;
    const body = method === 'GET' || method === 'HEAD' ? null : (upload?.forward() ?? bytes);
    const res = bodyOnGet
      ? await http1Request(target, { method, headers, body: bytes, signal: controller.signal })
      : await fetch(target, { method, headers, body, redirect: 'manual', signal: controller.signal });
    const answer = await normaliseBackendResponse(res);
    // A backend may answer before the whole upload reached it (a refusal): the caller's checks still come first.
    await upload?.verdict();
    return answer;
  } catch (err) {
    if (refusal) throw refusal;
    if (err instanceof ApiError) throw err;
    if (timedOut) throw new ApiError('backendTimeout', `region ${req.region} backend did not answer within ${req.timeoutMs} ms`);
    throw new ApiError('backendUnavailable', `region ${req.region} backend is unreachable`, undefined, err);
  } finally {
    clearTimeout(timer);
  }
}
