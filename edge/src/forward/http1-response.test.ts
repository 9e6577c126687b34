/**
 * The edge's HTTP/1.1 answer reader: linear in the answer (bytes copied counted, not timed), the same body
 * whatever the split of the bytes into reads, and bounded (head, chunk lines, body).
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forwardToBackend } from './forward.service.js';
import { Http1ResponseError, Http1ResponseParser, MAX_HEAD_BYTES } from './http1-response.js';

const encoder = new TextEncoder();

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/** Byte equality without the matcher's element-by-element walk (slow and huge on megabytes). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function pattern(size: number, seed = 0): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i + seed) % 251;
  return bytes;
}

function chunkedWire(body: Uint8Array, pieces: number[]): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: application/octet-stream\r\n\r\n')];
  let offset = 0;
  for (const size of pieces) {
    const take = Math.min(size, body.byteLength - offset);
    if (take <= 0) break;
    parts.push(encoder.encode(`${take.toString(16)};ext=1\r\n`), body.subarray(offset, offset + take), encoder.encode('\r\n'));
    offset += take;
  }
  if (offset < body.byteLength) parts.push(encoder.encode(`${(body.byteLength - offset).toString(16)}\r\n`), body.subarray(offset), encoder.encode('\r\n'));
  parts.push(encoder.encode('0\r\n\r\n'));
  return join(parts);
}

function feed(parser: Http1ResponseParser, wire: Uint8Array, cuts: number[]): Uint8Array {
  let pos = 0;
  for (const cut of cuts) {
    const end = Math.min(wire.byteLength, pos + cut);
    parser.push(wire.subarray(pos, end));
    pos = end;
  }
  if (pos < wire.byteLength) parser.push(wire.subarray(pos));
  return parser.complete ? parser.body() : parser.end();
}

describe('HTTP/1.1 answer reader', () => {
  it('reads an 8 MB chunked answer arriving 1 KB at a time with a bounded number of bytes copied (linear, not quadratic)', () => {
    const body = pattern(8 * 1024 * 1024);
    const wire = chunkedWire(body, Array(8192).fill(1024));
    const parser = new Http1ResponseParser('GET', 64 * 1024 * 1024);
    for (let pos = 0; pos < wire.byteLength; pos += 1024) parser.push(wire.subarray(pos, pos + 1024));
    expect(parser.complete).toBe(true);
    expect(same(parser.body(), body)).toBe(true);
    // Doubling growth copies at most twice the body on top of the one copy of each byte.
    expect(parser.bytesCopied).toBeLessThanOrEqual(3 * body.byteLength + 4096);
  }, 60_000);

  it('copies a Content-Length answer once into a buffer of its size', () => {
    const body = pattern(4 * 1024 * 1024, 3);
    const wire = join([encoder.encode(`HTTP/1.1 200 OK\r\ncontent-length: ${body.byteLength}\r\n\r\n`), body]);
    const parser = new Http1ResponseParser('GET', 64 * 1024 * 1024);
    for (let pos = 0; pos < wire.byteLength; pos += 1000) parser.push(wire.subarray(pos, pos + 1000));
    expect(same(parser.body(), body)).toBe(true);
    expect(parser.bytesCopied).toBeLessThanOrEqual(body.byteLength + 2 * 1000);
  }, 60_000);

  it('property: the same body and head whatever the framing and the split into reads (1xx heads, close-delimited)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 5000 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 40 }),
        fc.constantFrom('chunked', 'length', 'close'),
        fc.boolean(),
        (body, pieces, cuts, framing, interim) => {
          const continueHead = interim ? 'HTTP/1.1 100 Continue\r\n\r\n' : '';
          const wire =
            framing === 'chunked'
              ? join([encoder.encode(continueHead), chunkedWire(body, pieces)])
              : join([encoder.encode(`${continueHead}HTTP/1.1 200 OK\r\nx-a: b\r\n${framing === 'length' ? `content-length: ${body.byteLength}\r\n` : ''}\r\n`), body]);
          const parser = new Http1ResponseParser('GET', 1024 * 1024);
          expect(same(feed(parser, wire, cuts), body)).toBe(true);
          expect(parser.head?.status).toBe(200);
          expect(parser.bytesCopied).toBeLessThanOrEqual(3 * wire.byteLength + 8192);
          // Streamed: the pieces handed on are the body, and only the bytes read with the head are kept.
          const handed: Uint8Array[] = [];
          const streamed = new Http1ResponseParser('GET', 1024 * 1024, (piece) => handed.push(piece.slice()));
          feed(streamed, wire, cuts);
          expect(same(join(handed), body)).toBe(true);
          // The head (under 200 bytes here) is kept with the read that completed it, nothing after it.
          const sum = cuts.reduce((a, b) => a + b, 0);
          const largestRead = Math.max(...cuts, wire.byteLength - sum);
          expect(streamed.bytesCopied).toBeLessThanOrEqual(200 + largestRead);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);

  it('refuses hostile answers: an endless head, a bad or endless chunk-size line, a body over the limit, a short body', () => {
    const fails = (wire: string | Uint8Array, max = 1024) => {
      const parser = new Http1ResponseParser('GET', max);
      return () => feed(parser, typeof wire === 'string' ? encoder.encode(wire) : wire, [97]);
    };
    expect(fails(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(MAX_HEAD_BYTES + 10)}`)).toThrow(Http1ResponseError);
    expect(fails('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')).toThrow(Http1ResponseError);
    expect(fails(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1${'0'.repeat(5000)}`)).toThrow(Http1ResponseError);
    expect(fails('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n800\r\n')).toThrow(/too large/);
    expect(fails('HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n')).toThrow(/too large/);
    expect(fails('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')).toThrow(/before a complete response/);
    expect(fails('HTTP/1.1 200 OK\r\n\r\n' + 'x'.repeat(2000))).toThrow(/too large/);
    expect(fails('SSH-2.0\r\n\r\n')).toThrow(/malformed/);
  });

  it('forwards a GET with a body whose 4 MB answer comes in 1 KB chunks over a real socket', async () => {
    const answer = await forwardToBackend({
      region: 'cn-east',
      backend: { url: env.BACKEND_URL_CN_EAST, secret: env.INTERNAL_SECRET_CN_EAST },
      timeoutMs: 60_000,
      method: 'GET',
      pathWithQuery: '/get_image_sets/_0000014',
      headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded', 'x-test-backend': 'many-chunks:4096' }),
      body: encoder.encode('a=b'),
      accountId: 42,
      context: { requestId: 'r1', lang: 'en' },
    });
    const bytes = new Uint8Array(await answer.response.arrayBuffer());
    expect(bytes.byteLength).toBe(4 * 1024 * 1024);
    expect(same(bytes, pattern(4 * 1024 * 1024))).toBe(true);
  }, 60_000);
});
