/**
 * An HTTP/1.1 response read incrementally, each byte looked at and copied a bounded number of times: the
 * head is searched only in bytes not searched before, a Content-Length body is copied once into a buffer
 * of its size, a chunked body is decoded as it arrives into a buffer that grows by doubling. `bytesCopied`
 * counts every copy (growth included), so that the linear cost is checked by tests, not by a clock.
 */

const decoder = new TextDecoder();
/** A response head (status line and headers, 1xx interim heads included) longer than this is refused. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line (size and extensions) longer than this is refused. */
const MAX_CHUNK_LINE_BYTES = 4096;

export class Http1ResponseError extends Error {}

/** Where body bytes go: one buffer, or (streaming) a function that passes them on. */
interface BodyOut {
  readonly length: number;
  append(piece: Uint8Array): void;
  bytes(): Uint8Array<ArrayBuffer>;
}

/** Bytes appended at the end, kept in one array that doubles when full (amortised linear). */
class ByteBuffer implements BodyOut {
  #bytes: Uint8Array<ArrayBuffer>;
  length = 0;

  constructor(
    private readonly counter: { bytesCopied: number },
    capacity = 4096,
  ) {
    this.#bytes = new Uint8Array(capacity);
  }

  append(chunk: Uint8Array): void {
    if (this.length + chunk.byteLength > this.#bytes.byteLength) {
      const grown = new Uint8Array(Math.max(2 * this.#bytes.byteLength, this.length + chunk.byteLength));
      grown.set(this.#bytes.subarray(0, this.length));
      this.counter.bytesCopied += this.length;
      this.#bytes = grown;
    }
    this.#bytes.set(chunk, this.length);
    this.counter.bytesCopied += chunk.byteLength;
    this.length += chunk.byteLength;
  }

  bytes(): Uint8Array<ArrayBuffer> {
    return this.#bytes.subarray(0, this.length);
  }
}

/** A body whose size is known: one buffer of that size, each byte copied once. */
class FixedBuffer implements BodyOut {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  length = 0;

  constructor(
    private readonly counter: { bytesCopied: number },
    size: number,
  ) {
    this.#bytes = new Uint8Array(size);
  }

  append(piece: Uint8Array): void {
    this.#bytes.set(piece, this.length);
    this.length += piece.byteLength;
    this.counter.bytesCopied += piece.byteLength;
  }

  bytes(): Uint8Array<ArrayBuffer> {
    return this.#bytes;
  }
}

/** A streamed body: pieces are handed on as they are decoded, nothing is kept. */
class PassOn implements BodyOut {
  length = 0;

  constructor(private readonly sink: (piece: Uint8Array) => void) {}

  append(piece: Uint8Array): void {
    this.length += piece.byteLength;
    if (piece.byteLength > 0) this.sink(piece);
  }

  bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(0);
  }
}

export interface ResponseHead {
  status: number;
  headers: Headers;
}

type BodyState =
  | { kind: 'empty' }
  | { kind: 'length'; out: BodyOut; total: number }
  | { kind: 'close'; out: BodyOut }
  | { kind: 'chunked'; out: BodyOut; phase: 'size' | 'data' | 'crlf' | 'done'; line: number[]; remaining: number };

function headEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

export class Http1ResponseParser {
  /** Every byte copied so far (head, body, buffer growth). */
  bytesCopied = 0;
  head: ResponseHead | undefined;
  readonly #headBuffer = new ByteBuffer(this);
  /** Where the head being read starts (after interim 1xx heads) and how far its end was searched. */
  #headStart = 0;
  #searchedTo = 0;
  #body: BodyState | undefined;

  /**
   * With `sink`, body bytes are handed to it as they are decoded (a streamed answer) instead of being kept;
   * `body()` is then empty.
   */
  constructor(
    private readonly method: string,
    private readonly maxBodyBytes: number,
    private readonly sink?: (piece: Uint8Array) => void,
  ) {}

  /** True once the whole response has been read. */
  get complete(): boolean {
    const body = this.#body;
    if (!body) return false;
    if (body.kind === 'empty') return true;
    if (body.kind === 'length') return body.out.length === body.total;
    if (body.kind === 'chunked') return body.phase === 'done';
    return false;
  }

  push(chunk: Uint8Array): void {
    if (this.complete || chunk.byteLength === 0) return;
    if (!this.#body) {
      this.#headBuffer.append(chunk);
      const rest = this.#readHead();
      if (rest === undefined) return;
      chunk = rest;
    }
    this.#pushBody(chunk);
  }

  /** The connection closed: the body, or an error when the response is incomplete. */
  end(): Uint8Array<ArrayBuffer> {
    const body = this.#body;
    if (!body) throw new Http1ResponseError('backend closed the connection before a complete response');
    if (body.kind === 'close') return body.out.bytes();
    if (!this.complete) throw new Http1ResponseError('backend closed the connection before a complete response');
    return this.body();
  }

  /** The body of a complete response. */
  body(): Uint8Array<ArrayBuffer> {
    const body = this.#body!;
    if (body.kind === 'empty') return new Uint8Array(0);
    return body.out.bytes();
  }

  /** Parses heads once their end has arrived; returns the bytes after the final head. */
  #readHead(): Uint8Array | undefined {
    for (;;) {
      const bytes = this.#headBuffer.bytes();
      const end = headEnd(bytes, Math.max(this.#headStart, this.#searchedTo - 3));
      if (end === -1) {
        this.#searchedTo = bytes.length;
        if (bytes.length > MAX_HEAD_BYTES) throw new Http1ResponseError('backend response head too large');
        return undefined;
      }
      if (end > MAX_HEAD_BYTES) throw new Http1ResponseError('backend response head too large');
      const lines = decoder.decode(bytes.subarray(this.#headStart, end)).split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
      if (!Number.isInteger(status)) throw new Http1ResponseError(`malformed HTTP response: ${(lines[0] ?? '').slice(0, 100)}`);
      if (status < 200) {
        // An interim 1xx head: the final one follows.
        this.#headStart = end + 4;
        this.#searchedTo = end + 4;
        continue;
      }
      const headers = new Headers();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      this.head = { status, headers };
      this.#body = this.#bodyState(status, headers);
      return bytes.subarray(end + 4);
    }
  }

  #bodyState(status: number, headers: Headers): BodyState {
    if (this.method === 'HEAD' || status === 204 || status === 304) return { kind: 'empty' };
    if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
      return { kind: 'chunked', out: this.#out(), phase: 'size', line: [], remaining: 0 };
    }
    const length = headers.get('content-length');
    if (length !== null) {
      const n = Number(length);
      if (!/^\d{1,15}$/.test(length.trim()) || !Number.isSafeInteger(n)) throw new Http1ResponseError('malformed content-length');
      if (n > this.maxBodyBytes) throw new Http1ResponseError('backend response too large');
      return n === 0 ? { kind: 'empty' } : { kind: 'length', out: this.sink ? new PassOn(this.sink) : new FixedBuffer(this, n), total: n };
    }
    return { kind: 'close', out: this.#out() };
  }

  #out(): BodyOut {
    return this.sink ? new PassOn(this.sink) : new ByteBuffer(this);
  }

  #pushBody(chunk: Uint8Array): void {
    const body = this.#body!;
    if (body.kind === 'empty') return;
    if (body.kind === 'length') {
      body.out.append(chunk.subarray(0, Math.min(chunk.byteLength, body.total - body.out.length)));
      return;
    }
    if (body.kind === 'close') {
      if (body.out.length + chunk.byteLength > this.maxBodyBytes) throw new Http1ResponseError('backend response too large');
      body.out.append(chunk);
      return;
    }
    this.#pushChunked(body, chunk);
  }

  #pushChunked(body: Extract<BodyState, { kind: 'chunked' }>, chunk: Uint8Array): void {
    let pos = 0;
    while (pos < chunk.byteLength && body.phase !== 'done') {
      if (body.phase === 'size') {
        const lf = chunk.indexOf(10, pos);
        const stop = lf === -1 ? chunk.byteLength : lf;
        if (body.line.length + (stop - pos) > MAX_CHUNK_LINE_BYTES) throw new Http1ResponseError('malformed chunked body');
        for (let i = pos; i < stop; i++) body.line.push(chunk[i]!);
        pos = stop;
        if (lf === -1) return;
        pos++; // the LF
        const text = String.fromCharCode(...body.line).split(';')[0]!.trim();
        body.line = [];
        if (!/^[0-9a-fA-F]{1,12}$/.test(text)) throw new Http1ResponseError('malformed chunked body');
        const size = parseInt(text, 16);
        if (size === 0) {
          body.phase = 'done';
          return;
        }
        if (body.out.length + size > this.maxBodyBytes) throw new Http1ResponseError('backend response too large');
        body.remaining = size;
        body.phase = 'data';
      } else if (body.phase === 'data') {
        const take = Math.min(body.remaining, chunk.byteLength - pos);
        body.out.append(chunk.subarray(pos, pos + take));
        body.remaining -= take;
        pos += take;
        if (body.remaining === 0) {
          body.phase = 'crlf';
          body.remaining = 2;
        }
      } else {
        const take = Math.min(body.remaining, chunk.byteLength - pos);
        body.remaining -= take;
        pos += take;
        if (body.remaining === 0) body.phase = 'size';
      }
    }
  }
}
