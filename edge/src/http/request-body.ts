/**
 * The request body as the edge needs it: the exact bytes (forwarded unchanged) and, parsed on first use,
 * the text parameters of every form real clients send on any method: urlencoded, multipart text fields,
 * JSON. The JSON rule mirrors the backend's: a JSON content type, or a body that looks like JSON without
 * a form content type. A large multipart upload is not read here but streamed (`upload`, streamed-upload.ts):
 * its fields are known once it has passed.
 */
import { ApiError, LIMITS } from '@iris/shared';
import { boundaryOf, multipartTextFields } from './multipart.js';
import { StreamedUpload } from './streamed-upload.js';

/** 50 MB of upload plus room for the multipart envelope and text fields. */
export const MAX_BODY_BYTES = LIMITS.uploadBytes + 2 * 1024 * 1024;

const decoder = new TextDecoder();

/** RFC 2046's longest boundary; a multipart body with a longer one is read whole. */
const MAX_STREAM_BOUNDARY = 70;

export class RequestBody {
  #form: [string, string][] | undefined;
  #json: { text: string; value: unknown } | null | undefined;
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

  /** The JSON body (exact text and parsed value; value undefined when it does not parse), or null. */
  get json(): { text: string; value: unknown } | null {
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

  #parseJson(): { text: string; value: unknown } | null {
    if (!this.bytes || this.isMultipart) return null;
    const type = this.contentType.toLowerCase();
    const text = decoder.decode(this.bytes);
    const looksJson = !type.includes('urlencoded') && /^\s*[[{]/.test(text);
    if (!type.includes('json') && !looksJson) return null;
    try {
      return { text, value: JSON.parse(text) };
    } catch {
      return { text, value: undefined };
    }
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

function tooLarge(): ApiError {
  return new ApiError('payloadTooLarge', `request body must be at most ${MAX_BODY_BYTES} bytes (uploads under 50 MB)`);
}

/** Reads the whole body, refusing more than `limit` bytes (by Content-Length up front, else while reading). */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (size === 0) return null;
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The body of a call: a multipart upload with a Content-Length of at least `streamMinBytes` (never on GET or
 * HEAD) streams; anything else is read whole.
 */
export async function readRequestBody(request: Request, limit = MAX_BODY_BYTES, streamMinBytes = Infinity): Promise<RequestBody> {
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
  if (streamable) return new RequestBody(null, contentType, query, new StreamedUpload(request.body!, declared, boundary!));
  const bytes = await readBodyBytes(request, limit);
  return new RequestBody(bytes, contentType, query);
}
