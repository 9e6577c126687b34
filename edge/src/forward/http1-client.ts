/**
 * A minimal HTTP/1.1 client over a TCP socket, used only to forward GET and HEAD requests that carry a body:
 * the fetch standard (and so the Workers runtime) refuses such requests, but released clients send them
 * (GET with a form or JSON body) and the backend reads them. One request per connection (`connection: close`);
 * the answer is read incrementally (http1-response.ts), at most 64 MB.
 */
import { connect } from 'cloudflare:sockets';
import { Http1ResponseParser } from './http1-response.js';

const encoder = new TextEncoder();
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const SKIPPED_REQUEST_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

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
    const parser = new Http1ResponseParser(init.method, MAX_RESPONSE_BYTES);
    for (;;) {
      const { value, done } = await reader.read();
      if (value) parser.push(value);
      if (!parser.complete && !done) continue;
      const body = parser.complete ? parser.body() : parser.end();
      const { status, headers } = parser.head!;
      headers.delete('transfer-encoding');
      headers.delete('content-length');
      const empty = init.method === 'HEAD' || status === 204 || status === 304;
      return new Response(empty ? null : body, { status, headers });
    }
  } finally {
    init.signal.removeEventListener('abort', abort);
    abort();
  }
}
