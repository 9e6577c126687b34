/**
 * A multipart upload streamed through the edge (docs/edge.md, "Streamed uploads"). The body goes on to the
 * backend as it arrives while `MultipartFieldStream` reads its text fields on the way. The last bytes are held
 * back until every check registered with `requireBeforeEnd` (the caller's signature) has passed, so a backend
 * never receives a whole body the edge has not accepted; when a check fails, the forwarded body is aborted and
 * the backend, which binds the body to its signed length, refuses the shortened request and stores nothing.
 * The edge holds a few chunks in flight and the held-back tail (64 KB) per upload, whatever the upload's size
 * (taken from the call's body lease); a route that must read the whole upload gets it in one buffer of its
 * declared length, counted as it fills.
 */
import { ApiError } from '@iris/shared';
import { unlimitedLease, type BodyLease } from './body-memory.js';
import { MultipartFieldStream } from './multipart-stream.js';

/** Bytes at the end of the body that reach the backend only after the checks. */
const HOLD_BYTES = 64 * 1024;
/** Chunks handed to the forward stream and not yet taken by it. */
const WRITES_IN_FLIGHT = 4;
/** A read from the caller waits for this many bytes (fewer at the end): few large chunks, not many small ones. */
const READ_BYTES = 256 * 1024;
/** What a forwarded or drained upload holds at most: chunks in flight, the one being read, the tail. */
export const STREAM_HOLD_BYTES = HOLD_BYTES + (WRITES_IN_FLIGHT + 1) * READ_BYTES;

type Sink = 'forward' | 'collect' | 'discard';

export class StreamedUpload {
  /** Text fields (busboy's reading), once the whole body has been read. */
  readonly fields: Promise<[string, string][]>;
  /** The fields, once `fields` has resolved. */
  readFields: [string, string][] | undefined;
  #resolveFields!: (fields: [string, string][]) => void;
  #rejectFields!: (err: unknown) => void;
  readonly #checks: Promise<unknown>[] = [];
  readonly #parser: MultipartFieldStream;
  #sink: Sink | undefined;
  #pumped: Promise<Uint8Array | null> | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  readonly #inFlight: Promise<void>[] = [];

  constructor(
    private readonly source: ReadableStream<Uint8Array>,
    /** The declared Content-Length: exactly this many bytes are read and forwarded. */
    readonly length: number,
    boundary: string,
    private readonly lease: BodyLease = unlimitedLease(),
  ) {
    this.#parser = new MultipartFieldStream(boundary);
    this.fields = new Promise((resolve, reject) => {
      this.#resolveFields = resolve;
      this.#rejectFields = reject;
    });
    this.fields.catch(() => {});
  }

  /** True once the body is being read (forwarded, collected or drained). */
  get started(): boolean {
    return this.#sink !== undefined;
  }

  /** The end of the forwarded body waits for `check`; its failure aborts the forward. */
  requireBeforeEnd(check: Promise<unknown>): void {
    check.catch(() => {});
    this.#checks.push(check);
  }

  /** Resolves once the body is read and every check passed; rejects with the first failure. */
  async verdict(): Promise<void> {
    await this.fields;
    await Promise.all(this.#checks);
  }

  /** Starts the pump into a fixed-length stream (the backend gets a Content-Length) and returns it for `fetch`. */
  forward(): ReadableStream<Uint8Array> {
    const { readable, writable } = new FixedLengthStream(this.length);
    this.#writer = writable.getWriter();
    this.#start('forward');
    return readable;
  }

  /** Reads the whole body into memory (a route that needs body fields before forwarding). */
  async collect(): Promise<Uint8Array> {
    return (await this.#start('collect'))!;
  }

  /** Reads the rest of the body without forwarding it (the call was answered at the edge). */
  async discard(): Promise<void> {
    try {
      await (this.#pumped ?? this.#start('discard'));
    } catch {
      // Refused or broken: the runtime drops what is left of the body when the call ends.
    }
  }

  #start(sink: Sink): Promise<Uint8Array | null> {
    if (this.#sink) throw new Error(`upload already read (${this.#sink})`);
    if (sink !== 'collect') this.lease.take(STREAM_HOLD_BYTES);
    this.#sink = sink;
    this.#pumped = this.#pump();
    this.#pumped.catch(() => {});
    return this.#pumped;
  }

  async #pump(): Promise<Uint8Array | null> {
    const reader = chunkReader(this.source);
    const collected = this.#sink === 'collect' ? new Uint8Array(this.length) : null;
    const held: Uint8Array[] = [];
    const holdFrom = Math.max(0, this.length - HOLD_BYTES);
    let received = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const start = received;
        received += value.byteLength;
        if (received > this.length) throw new ApiError('invalidData', 'the request body is longer than its Content-Length');
        this.#parser.push(value);
        if (collected) {
          this.lease.take(value.byteLength);
          collected.set(value, start);
        }
        else if (this.#writer) {
          const cut = Math.max(0, Math.min(value.byteLength, holdFrom - start));
          if (cut > 0) await this.#write(value.subarray(0, cut));
          if (cut < value.byteLength) held.push(value.slice(cut));
        }
      }
      if (received !== this.length) throw new ApiError('invalidData', 'the request body is shorter than its Content-Length');
      this.readFields = this.#parser.end();
      this.#resolveFields(this.readFields);
      if (collected) return collected;
      await Promise.all(this.#checks);
      for (const chunk of held) await this.#write(chunk);
      await this.#flushWrites();
      await this.#writer?.close();
      return null;
    } catch (err) {
      this.#rejectFields(err);
      reader.cancel(err).catch(() => {});
      this.#writer?.abort(err).catch(() => {});
      throw err;
    }
  }

  /**
   * Up to WRITES_IN_FLIGHT chunks wait for the backend while the next one is read from the caller. A backend
   * that stops reading (it answered early, or the call timed out) turns the pump into a drain.
   */
  async #write(chunk: Uint8Array): Promise<void> {
    const writer = this.#writer;
    if (!writer) return;
    this.#inFlight.push(
      writer.write(chunk).catch(() => {
        if (this.#writer === writer) this.#writer = undefined;
      }),
    );
    if (this.#inFlight.length >= WRITES_IN_FLIGHT) await this.#inFlight.shift();
  }

  async #flushWrites(): Promise<void> {
    await Promise.all(this.#inFlight.splice(0));
  }
}

/**
 * Reads a byte stream (a request body) in chunks of READ_BYTES with workerd's `readAtLeast`, which costs far
 * less per byte than the network's small chunks; other streams are read as they come.
 */
function chunkReader(source: ReadableStream<Uint8Array>): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(reason: unknown): Promise<void> } {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = source.getReader({ mode: 'byob' });
  } catch {
    return source.getReader();
  }
  const reader = byob;
  return {
    read: async () => {
      const result = await reader.readAtLeast(READ_BYTES, new Uint8Array(READ_BYTES));
      // A read that ends the stream may still carry its last bytes.
      if (result.value && result.value.byteLength > 0) return { done: false, value: result.value };
      return { done: true, value: undefined };
    },
    cancel: (reason) => reader.cancel(reason),
  };
}
