/**
 * A minimal HTTP/1.1 client over a TCP socket, used only to forward GET and HEAD requests that carry a body:
 * the fetch standard (and so the Workers runtime) refuses such requests, but released clients send them
 * (GET with a form or JSON body) and the backend reads them. One request per connection (`connection: close`).
 */
import { connect } from 'cloudflare:sockets';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const SKIPPED_REQUEST_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

interface ParsedHead {
  status: number;
  headers: Headers;
  bodyStart: number;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

function headEnd(buffer: Uint8Array, from: number): number {
  for (let i = from; i + 3 < buffer.length; i++) {
    if (buffer[i] === 13 && buffer[i + 1] === 10 && buffer[i + 2] === 13 && buffer[i + 3] === 10) return i;
  }
  return -1;
}

/** Parses the final (non-1xx) response head, or returns null when more bytes are needed. */
function parseHead(buffer: Uint8Array): ParsedHead | null {
  let from = 0;
  for (;;) {
    const end = headEnd(buffer, from);
    if (end === -1) return null;
    const lines = decoder.decode(buffer.subarray(from, end)).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) throw new Error(`malformed HTTP response: ${lines[0] ?? ''}`);
    if (status >= 200) {
      const headers = new Headers();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      return { status, headers, bodyStart: end + 4 };
    }
    from = end + 4; // interim 1xx response
  }
}

/** Decodes a complete chunked body, or returns null when it is not complete yet. */
export function decodeChunked(data: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let pos = 0;
  for (;;) {
    const lineEnd = data.indexOf(10, pos);
    if (lineEnd === -1) return null;
    const size = parseInt(decoder.decode(data.subarray(pos, lineEnd)).split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size)) throw new Error('malformed chunked body');
    pos = lineEnd + 1;
    if (size === 0) break;
    if (pos + size + 2 > data.length) return null;
    parts.push(data.subarray(pos, pos + size));
    pos += size + 2;
  }
  return parts.reduce(concat, new Uint8Array(0));
}

function completeBody(head: ParsedHead, buffer: Uint8Array, method: string, ended: boolean): Uint8Array | null {
  const rest = buffer.subarray(head.bodyStart);
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return new Uint8Array(0);
  if ((head.headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) return decodeChunked(rest);
  const length = head.headers.get('content-length');
  if (length !== null) return rest.length >= Number(length) ? rest.subarray(0, Number(length)) : null;
  return ended ? rest : null;
}

export async function http1Request(url: URL, init: { method: string; headers: Headers; body: Uint8Array | null; signal: AbortSignal }): Promise<Response> {
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = connect({ hostname, port: Number(url.port || (secure ? 443 : 80)) }, { secureTransport: secure ? 'on' : 'off', allowHalfOpen: false });
  const abort = () => void socket.close().catch(() => {});
  init.signal.addEventListener('abort', abort);
  try {
    await socket.opened;
    let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [name, value] of init.headers) if (!SKIPPED_REQUEST_HEADERS.has(name)) head += `${name}: ${value}\r\n`;
    head += `content-length: ${init.body?.byteLength ?? 0}\r\nconnection: close\r\n\r\n`;
    const writer = socket.writable.getWriter();
    await writer.write(encoder.encode(head));
    if (init.body) await writer.write(init.body);
    writer.releaseLock();

    const reader = socket.readable.getReader();
    let buffer = new Uint8Array(0);
    let parsed: ParsedHead | null = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer = concat(buffer, value);
      if (buffer.length > MAX_RESPONSE_BYTES) throw new Error('backend response too large');
      parsed ??= parseHead(buffer);
      const body = parsed ? completeBody(parsed, buffer, init.method, done) : null;
      if (parsed && body) {
        parsed.headers.delete('transfer-encoding');
        parsed.headers.delete('content-length');
        const empty = init.method === 'HEAD' || parsed.status === 204 || parsed.status === 304;
        return new Response(empty ? null : body, { status: parsed.status, headers: parsed.headers });
      }
      if (done) throw new Error('backend closed the connection before a complete response');
    }
  } finally {
    init.signal.removeEventListener('abort', abort);
    abort();
  }
}
