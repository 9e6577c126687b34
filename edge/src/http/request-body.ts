/**
 * The request body as the edge needs it: the exact bytes (forwarded unchanged) and, parsed on first use,
 * the text parameters of every form real clients send on any method: urlencoded, multipart text fields,
 * JSON. The JSON rule mirrors the backend's: a JSON content type, or a body that looks like JSON without
 * a form content type. A large multipart upload is not read here but streamed (`upload`, streamed-upload.ts):
 * its fields are known once it has passed. A body is held once (docs/edge.md, "Memory for bodies"): read
 * into one buffer of its declared length, taken from the isolate's body budget first; the JSON text is not
 * kept beside its bytes (the signature is computed over the bytes).
 */
import { ApiError, LIMITS } from '@iris/shared';
import { unlimitedLease, type BodyLease } from './body-memory.js';
import { boundaryOf, multipartTextFields } from './multipart.js';
import { StreamedUpload } from './streamed-upload.js';

/** 50 MB of upload plus room for the multipart envelope and text fields. */
export const MAX_BODY_BYTES = LIMITS.uploadBytes + 2 * 1024 * 1024;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A JSON body: its parsed value (undefined when it does not parse) and the bytes its signature covers. */
export interface JsonBody {
  value: unknown;
  /** The body's bytes, or (for a body with a byte-order mark or bytes that are not UTF-8) its decoded text re-encoded. */
  signed: Uint8Array;
}

/** RFC 2046's longest boundary; a multipart body with a longer one is read whole. */
const MAX_STREAM_BOUNDARY = 70;

export class RequestBody {
  #form: [string, string][] | undefined;
  #json: JsonBody | null | undefined;
  #bytes: Uint8Array | null;

  constructor(
    bytes: Uint8Array | null,
    readonly contentType: string,
    /** Query-string parameters, decoded, in order. */
    readonly query: [string, string][],
    /** A multipart upload streaming to the backend (then `bytes` is null until `readWhole`). */
    readonly upload?: StreamedUpload,
  ) {
    this.#bytes = bytes;
  }

  /** Exact body bytes; null when the request has no body or its upload streams. */
  get bytes(): Uint8Array | null {
    return this.#bytes;
  }

  /** True while the body is a streamed upload that has not been read into memory. */
  get streams(): boolean {
    return this.upload !== undefined && this.#bytes === null;
  }

  /** Reads a streamed upload into memory (a route that needs body fields before forwarding). */
  async readWhole(): Promise<void> {
    if (!this.streams) return;
    this.#bytes = await this.upload!.collect();
    this.#form = undefined;
  }

  get isMultipart(): boolean {
    return this.contentType.toLowerCase().startsWith('multipart/form-data');
  }

  /** The JSON body (parsed value, signed bytes), or null. */
  get json(): JsonBody | null {
    if (this.#json === undefined) this.#json = this.#parseJson();
    return this.#json;
  }

  /** Urlencoded fields or multipart text fields (never file parts), in body order. */
  get form(): [string, string][] {
    this.#form ??= this.#parseForm();
    return this.#form;
  }

  /** A text parameter by name: body (form, multipart text field or top-level JSON value) over query string. */
  param(name: string): string | undefined {
    const json = this.json?.value;
    if (json && typeof json === 'object' && !Array.isArray(json) && name in json) {
      const value = (json as Record<string, unknown>)[name];
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    }
    const fromForm = this.form.findLast(([key]) => key === name);
    if (fromForm) return fromForm[1];
    return this.query.findLast(([key]) => key === name)?.[1];
  }

  #parseJson(): JsonBody | null {
    const bytes = this.bytes;
    if (!bytes || this.isMultipart) return null;
    const type = this.contentType.toLowerCase();
    if (!type.includes('json') && (type.includes('urlencoded') || !looksLikeJson(bytes))) return null;
    // The text lives only while it is parsed. Decoding drops a byte-order mark and replaces bytes that are
    // not UTF-8: then (only) the signature is over the text the client must have signed, re-encoded.
    const text = decoder.decode(bytes);
    const exact = !(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) && !text.includes('\uFFFD');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    return { value, signed: exact ? bytes : encoder.encode(text) };
  }

  #parseForm(): [string, string][] {
    if (this.streams) {
      if (!this.upload!.readFields) throw new Error('the fields of a streamed upload are known once it has been read');
      return this.upload!.readFields;
    }
    if (!this.bytes) return [];
    if (this.isMultipart) {
      const boundary = boundaryOf(this.contentType);
      return boundary ? multipartTextFields(this.bytes, boundary) : [];
    }
    if (this.json) return [];
    return [...new URLSearchParams(decoder.decode(this.bytes))];
  }
}

/**
 * `/^\s*[[{]/` on the decoded text, read on the bytes: ASCII white space is skipped there; a body whose first
 * other byte is not ASCII (a byte-order mark, Unicode spaces) is decoded to be judged exactly as the text.
 */
function looksLikeJson(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) continue;
    if (b >= 0x80) return /^\s*[[{]/.test(decoder.decode(bytes));
    return b === 0x5b || b === 0x7b;
  }
  return false;
}

function tooLarge(limit: number): ApiError {
  if (limit < MAX_BODY_BYTES) return new ApiError('payloadTooLarge', `a request body that is not multipart/form-data must be at most ${limit} bytes`);
  return new ApiError('payloadTooLarge', `request body must be at most ${MAX_BODY_BYTES} bytes (uploads under 50 MB)`);
}

/**
 * Reads the whole body, refusing more than `limit` bytes (by Content-Length up front, else while reading).
 * With a Content-Length the bytes go into one buffer of that size, counted in the lease as they arrive; without one
 * (a chunked body) the chunks are counted as they come and joined once at the end.
 */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES, lease: BodyLease = unlimitedLease()): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return null;
  const reader = request.body.getReader();
  try {
    if (Number.isSafeInteger(declared) && declared >= 0) return await readDeclared(reader, declared, lease);
    return await readChunked(reader, limit, lease);
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
}

/** Pages of a large zeroed buffer are resident once written: the lease grows with the bytes received. */
async function readDeclared(reader: ReadableStreamDefaultReader<Uint8Array>, declared: number, lease: BodyLease): Promise<Uint8Array | null> {
  const bytes = new Uint8Array(declared);
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (size + value.byteLength > declared) throw new ApiError('invalidData', 'the request body is longer than its Content-Length');
    lease.take(value.byteLength);
    bytes.set(value, size);
    size += value.byteLength;
  }
  if (size === 0) return null;
  return size === declared ? bytes : bytes.subarray(0, size);
}

async function readChunked(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number, lease: BodyLease): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) throw tooLarge(limit);
    lease.take(value.byteLength);
    chunks.push(value);
  }
  if (size === 0) return null;
  if (chunks.length === 1) return chunks[0]!;
  // The join holds the chunks and their copy for a moment: counted, then the chunks' share is given back.
  lease.take(size);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (let i = 0; i < chunks.length; i++) {
    bytes.set(chunks[i]!, offset);
    offset += chunks[i]!.byteLength;
  }
  chunks.length = 0;
  lease.give(size);
  return bytes;
}

/**
 * The body of a call: a multipart upload with a Content-Length of at least `streamMinBytes` (never on GET or
 * HEAD) streams; anything else is read whole, a body that is not multipart up to 1 MB. Memory for it comes
 * from `lease`.
 */
export async function readRequestBody(request: Request, limit = MAX_BODY_BYTES, streamMinBytes = Infinity, lease: BodyLease = unlimitedLease()): Promise<RequestBody> {
  const query = [...new URL(request.url).searchParams];
  const contentType = request.headers.get('content-type') ?? '';
  const declared = Number(request.headers.get('content-length') ?? NaN);
  const boundary = contentType.toLowerCase().startsWith('multipart/form-data') ? boundaryOf(contentType) : undefined;
  const streamable =
    request.body !== null &&
    request.method !== 'GET' &&
    request.method !== 'HEAD' &&
    Number.isSafeInteger(declared) &&
    declared >= Math.max(1, streamMinBytes) &&
    declared <= limit &&
    boundary !== undefined &&
    boundary.length > 0 &&
    boundary.length <= MAX_STREAM_BOUNDARY;
  if (streamable) return new RequestBody(null, contentType, query, new StreamedUpload(request.body!, declared, boundary!, lease));
  // The backend refuses any body that is not multipart past 1 MB (LIMITS.plainBodyBytes): so does the edge,
  // before reading it, instead of holding 50 MB of JSON or form text to forward a refusal.
  const multipart = contentType.toLowerCase().startsWith('multipart/form-data');
  const bytes = await readBodyBytes(request, multipart ? limit : Math.min(limit, LIMITS.plainBodyBytes), lease);
  return new RequestBody(bytes, contentType, query);
}
