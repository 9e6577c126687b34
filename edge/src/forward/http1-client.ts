/**
 * A minimal HTTP/1.1 client over a TCP socket, used only to forward GET and HEAD requests that carry a body:
 * the fetch standard (and so the Workers runtime) refuses such requests, but released clients send them
 * (GET with a form or JSON body) and the backend reads them. One request per connection (`connection: close`);
 * the answer's body is decoded incrementally (http1-response.ts) and streamed on, at most 64 MB; the socket
 * closes when the body has been passed on, the reader cancels, or the call is aborted.
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
  const close = () => void socket.close().catch(() => {});
  init.signal.addEventListener('abort', close);
  const done = () => {
    init.signal.removeEventListener('abort', close);
    close();
  };
  let streaming = false;
  try {
    await socket.opened;
    let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [name, value] of init.headers) if (!SKIPPED_REQUEST_HEADERS.has(name)) head += `${name}: ${value}\r\n`;
    head += `content-length: ${init.body?.byteLength ?? 0}\r\nconnection: close\r\n\r\n`;
    const writer = socket.writable.getWriter();
    await writer.write(encoder.encode(head));
    if (init.body) await writer.write(init.body);
    writer.releaseLock();

    // The body is passed on as it is decoded: pieces wait here only until the answer's stream exists.
    const reader = socket.readable.getReader();
    let pending: Uint8Array[] = [];
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const parser = new Http1ResponseParser(init.method, MAX_RESPONSE_BYTES, (piece) => (controller ? controller.enqueue(piece) : pending.push(piece)));
    while (!parser.head) {
      const { value, done: ended } = await reader.read();
      if (value) parser.push(value);
      if (ended && !parser.head) parser.end();
    }
    const { status, headers } = parser.head;
    headers.delete('transfer-encoding');
    headers.delete('content-length');
    const empty = init.method === 'HEAD' || status === 204 || status === 304;
    if (empty) return new Response(null, { status, headers });
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        for (const piece of pending) c.enqueue(piece);
        pending = [];
        if (parser.complete) {
          c.close();
          done();
        }
      },
      async pull(c) {
        try {
          const { value, done: ended } = await reader.read();
          if (value) parser.push(value);
          if (ended && !parser.complete) parser.end();
          if (parser.complete || ended) {
            c.close();
            done();
          }
        } catch (err) {
          c.error(err);
          done();
        }
      },
      cancel() {
        done();
      },
    });
    streaming = true;
    return new Response(body, { status, headers });
  } finally {
    if (!streaming) done();
  }
}
