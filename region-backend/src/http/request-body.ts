/**
 * One body reader for every method (GET and DELETE included: real clients send bodies on both) and every
 * form real clients use: JSON (values often strings), urlencoded, multipart (text fields and files).
 * Query-string parameters are merged in underneath body fields. Uploaded files are kept in memory while
 * small (MEMORY_PART_BYTES each, MEMORY_UPLOAD_BYTES for the whole process, released when the response is
 * sent); a larger one streams to a temp folder (never buffered whole), removed when the response is sent.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import Busboy from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, LIMITS, type FilePart } from '@iris/shared';
import { requireEdgeReading } from './edge-checks.js';
import { JsonTooDeepError, MAX_BODY_FILES, MAX_BODY_PARTS, MAX_MULTIPART_BYTES, MAX_MULTIPART_TEXT_BYTES, cutTruncatedParams, overlongParam, parseBoundedJson } from './input-limits.js';
import { releaseWhenAnswered } from './when-answered.js';
import { unreadableBody } from './unreadable-body.js';
import { FileSink } from '../util/file-sink.js';

export type UploadedFile = FilePart;

/**
 * A file part up to this size stays in memory: an analysis or search upload is read by the caller at once,
 * and writing it to a temp folder and reading it back cost a dozen file-system calls on the shared libuv
 * threads, each a turn of the event loop for the call.
 */
export const MEMORY_PART_BYTES = 2 * 1024 * 1024;
/** File parts held in memory by the whole process at once; past it, parts go to temp files. */
export const MEMORY_UPLOAD_BYTES = 64 * 1024 * 1024;

/** The process's budget for file parts held in memory. */
class UploadMemory {
  private used = 0;
  constructor(private readonly limit: number) {}
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
  get inUse(): number {
    return this.used;
  }
}

const uploadMemory = new UploadMemory(MEMORY_UPLOAD_BYTES);

/** Bytes of file parts the process holds in memory now (tests, metrics). */
export function uploadMemoryInUse(): number {
  return uploadMemory.inUse;
}

/** The bytes of an uploaded file part, from memory or from its temp file. */
export async function readUpload(file: FilePart): Promise<Buffer> {
  if (file.data) return Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
  return readFile(file.path!);
}

export interface RequestBody {
  /** Text parameters: body fields over query-string parameters; JSON non-strings are JSON-encoded. */
  fields: Record<string, string>;
  /** The parsed JSON body when the body was JSON. */
  json: unknown;
  files: UploadedFile[];
  file(field: string): UploadedFile | undefined;
  /** Bytes of a file part, or of a text field of that name (some clients send file contents as a field). */
  bytes(field: string): Promise<Buffer | null>;
  has(field: string): boolean;
  /** True when the request had no body at all (no bytes, or only white space): `{}` is a body, and not empty. */
  noBody: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    irisBody?: Promise<RequestBody>;
    irisUploadDir?: string;
    /** Bytes of this request's file parts held in memory (given back to the budget when it is answered). */
    irisUploadMemory?: number;
    /** Set once answered: a part still being read then (the body was refused midway) gives its memory back itself. */
    irisUploadsAnswered?: boolean;
  }
}

export interface BodyOptions {
  /** This process's folder of uploads in flight (config `uploadDir`: swept by others once this process is gone). */
  tmpDir: string;
  /** Uploaded files must be smaller than this (default: under 50 MB, as the specification says). */
  maxFileBytes?: number;
  maxPlainBytes?: number;
  /** The error for a parameter over its length cap (default 400/5001); analysis answers in its own family. */
  paramError?: (message: string) => Error;
}

/** Registers the raw pass-through parser and temp-file cleanup; call once per app. */
export function registerBodyHandling(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Keep the stream: `readBody` parses it (or request.raw when Fastify skipped the body, as for GET).
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  app.addHook('onResponse', removeUploadDir);
  app.addHook('onRequestAbort', removeUploadDir);
  releaseWhenAnswered(app, (request) => {
    request.irisUploadsAnswered = true;
    uploadMemory.give(request.irisUploadMemory ?? 0);
    request.irisUploadMemory = 0;
  });
}

export function readBody(request: FastifyRequest, options: BodyOptions): Promise<RequestBody> {
  request.irisBody ??= request.ctx ? request.ctx.timings.time('body', () => parseBody(request, options)) : parseBody(request, options);
  return request.irisBody;
}

/**
 * A record of a client's field names: no prototype, so a field named `__proto__` is kept as data (on a plain
 * object it would be dropped as a prototype change) and `constructor` or `toString` are not seen as sent.
 */
function fieldRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

async function parseBody(request: FastifyRequest, options: BodyOptions): Promise<RequestBody> {
  const fields = fieldRecord();
  for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') fields[key] = value;
    else if (Array.isArray(value) && typeof value[0] === 'string') fields[key] = value.join(',');
  }
  const stream: Readable = (request.body as Readable | undefined) ?? request.irisPayload ?? request.raw;
  const contentType = String(request.headers['content-type'] ?? '').toLowerCase();
  const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  let json: unknown;
  const files: UploadedFile[] = [];
  let bodyFieldCount = 0;
  let noBody = !hasBody;

  if (hasBody && contentType.startsWith('multipart/form-data')) {
    let dir: Promise<string> | undefined;
    const spillDir = () =>
      (dir ??= mkdir(options.tmpDir, { recursive: true })
        .then(() => mkdtemp(path.join(options.tmpDir, 'upload-')))
        .then((made) => (request.irisUploadDir = made)));
    const parsed = await readMultipart(request, stream, spillDir, options.maxFileBytes ?? LIMITS.uploadBytes);
    Object.assign(fields, parsed.fields);
    files.push(...parsed.files);
    bodyFieldCount = Object.keys(parsed.fields).length;
  } else if (hasBody) {
    const text = (await readAll(stream, options.maxPlainBytes ?? LIMITS.plainBodyBytes)).toString('utf8');
    noBody = text.trim() === '';
    if (contentType.includes('json') || (!contentType.includes('urlencoded') && /^\s*[[{]/.test(text))) {
      if (text.trim()) {
        try {
          json = parseBoundedJson(text);
        } catch (err) {
          if (err instanceof JsonTooDeepError) throw unreadableBody(request, `request body: ${err.message}`);
          throw unreadableBody(request, 'request body is not valid JSON');
        }
        if (json && typeof json === 'object' && !Array.isArray(json)) {
          for (const [key, value] of Object.entries(json)) {
            if (value === null || value === undefined) continue;
            fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
            bodyFieldCount++;
          }
        }
      }
    } else if (text.length) {
      for (const [key, value] of new URLSearchParams(text)) {
        if (++bodyFieldCount > MAX_BODY_PARTS) throw unreadableBody(request, `a form body may hold at most ${MAX_BODY_PARTS} fields`);
        fields[key] = value;
      }
    }
  }
  cutTruncatedParams(fields);
  const overlong = overlongParam(fields);
  if (overlong) throw options.paramError?.(overlong) ?? unreadableBody(request, overlong);

  requireEdgeReading(request, fields);
  const byField = new Map(files.map((f) => [f.field, f]));
  return {
    fields,
    json,
    files,
    file: (field) => byField.get(field),
    has: (field) => byField.has(field) || fields[field] !== undefined,
    bytes: async (field) => {
      const file = byField.get(field);
      if (file) return readUpload(file);
      return fields[field] !== undefined ? Buffer.from(fields[field]!, 'utf8') : null;
    },
    noBody,
  };
}

/**
 * Reads one file part: in memory while it fits MEMORY_PART_BYTES and the process's budget, else (from the
 * first chunk that does not fit) into a file of the request's temp folder, with what was held so far.
 */
async function storePart(request: FastifyRequest, file: Readable, entry: UploadedFile, spillPath: () => Promise<string>): Promise<void> {
  const held: Buffer[] = [];
  let heldBytes = 0;
  let sink: FileSink | null = null;
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      entry.size += chunk.length;
      if (!sink) {
        if (heldBytes + chunk.length <= MEMORY_PART_BYTES && uploadMemory.take(chunk.length)) {
          held.push(chunk);
          heldBytes += chunk.length;
          continue;
        }
        entry.path = await spillPath();
        sink = new FileSink(entry.path);
        for (const part of held) await sink.write(part);
        held.length = 0;
        uploadMemory.give(heldBytes);
        heldBytes = 0;
      }
      await sink.write(chunk);
    }
    if (sink) {
      await sink.end();
    } else {
      entry.data = Buffer.concat(held, heldBytes);
      if (!request.irisUploadsAnswered) {
        request.irisUploadMemory = (request.irisUploadMemory ?? 0) + heldBytes;
        heldBytes = 0;
      }
    }
  } finally {
    uploadMemory.give(heldBytes);
    sink?.destroy();
  }
}

/**
 * Parses a multipart body. Every way it can end settles each part first (its file closed, its memory given
 * back) and, when it failed, removes the temp folder before answering: a body cut off, refused midway by its
 * signed binding, malformed, or dropped by its client leaves no descriptor, byte or budget behind.
 */
function readMultipart(request: FastifyRequest, stream: Readable, spillDir: () => Promise<string>, maxFileBytes: number): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    const fields = fieldRecord();
    const files: UploadedFile[] = [];
    const writes: Promise<void>[] = [];
    const parts = new Set<Readable>();
    let failure: Error | null = null;
    let settled = false;
    let busboy: InstanceType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: request.headers as { 'content-type': string },
        // busboy accepts a file of exactly `fileSize` bytes; the limit is exclusive.
        limits: { fileSize: maxFileBytes - 1, fieldSize: LIMITS.plainBodyBytes, files: MAX_BODY_FILES, fields: MAX_BODY_PARTS, parts: MAX_BODY_PARTS },
      });
    } catch (err) {
      reject(unreadableBody(request, `malformed multipart body: ${(err as Error).message}`));
      return;
    }
    // A part stream is never ended by its source failing: it is ended here, so its reader's `finally` runs.
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      stream.unpipe(busboy);
      stream.resume(); // drain what still arrives, so the connection is not held by a paused body
      for (const part of parts) part.destroy(err);
      busboy.destroy();
      void Promise.allSettled(writes)
        .then(() => removeUploadDir(request))
        .finally(() => reject(failure ?? err));
    };
    const tooMany = (what: string, max: number) => () => {
      failure ??= unreadableBody(request, `a multipart body may hold at most ${max} ${what}`);
    };
    busboy.on('partsLimit', tooMany('parts', MAX_BODY_PARTS));
    busboy.on('filesLimit', tooMany('files', MAX_BODY_FILES));
    busboy.on('fieldsLimit', tooMany('fields', MAX_BODY_PARTS));
    let textBytes = 0;
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      textBytes += Buffer.byteLength(value);
      if (valueTruncated) failure ??= new ApiError('payloadTooLarge', `field ${name.slice(0, 64)} must be at most ${LIMITS.plainBodyBytes} bytes (send it as a file)`);
      else if (textBytes > MAX_MULTIPART_TEXT_BYTES) failure ??= new ApiError('payloadTooLarge', `the text fields of a multipart body must be at most ${MAX_MULTIPART_TEXT_BYTES} bytes together`);
      if (!failure) fields[name] = value;
    });
    busboy.on('file', (field, file, filename) => {
      if (settled) {
        file.resume();
        return;
      }
      const name = `${files.length}-${field.replace(/[^\w.-]/g, '_')}`;
      const entry: UploadedFile = { field, filename: filename || field, data: null, path: null, size: 0 };
      files.push(entry);
      parts.add(file);
      file.on('limit', () => {
        failure = new ApiError('payloadTooLarge', `file ${field} must be under ${Math.round(maxFileBytes / 1024 / 1024)} MB`);
      });
      const stored = storePart(request, file, entry, async () => path.join(await spillDir(), name)).finally(() => parts.delete(file));
      // Awaited once the body has finished or failed; an unhandled rejection meanwhile would stop the process.
      stored.catch(() => {});
      writes.push(stored);
    });
    busboy.on('error', (err: Error) => fail(unreadableBody(request, `malformed multipart body: ${err.message}`)));
    // The body is accepted only once it ended whole: a streamed upload is bound by its signed length, which
    // is checked at its end, whatever the parser has seen by then (a closing delimiter, then an epilogue).
    const ended = new Promise<void>((resolveEnd) => stream.once('end', resolveEnd));
    busboy.on('finish', () => {
      stream.resume(); // read any rest to its end or its error
      Promise.all([...writes, ended]).then(
        () => {
          if (!failure) {
            settled = true;
            resolve({ fields, files });
          } else fail(failure);
        },
        (err: Error) => fail(err),
      );
    });
    // Refused before it was read (internal-auth.hook.ts binds it to the signed length), or gone.
    if (stream.errored || stream.destroyed) {
      fail(stream.errored ?? unreadableBody(request, 'the request body was aborted'));
      return;
    }
    stream.on('error', fail);
    let bodyBytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes > MAX_MULTIPART_BYTES) fail(new ApiError('payloadTooLarge', `a multipart body must be at most ${MAX_MULTIPART_BYTES / 1024 / 1024} MB`));
    });
    // A client gone mid-body: the raw request closes, with or without an error on the body stream.
    stream.on('close', () => {
      if (!stream.readableEnded) fail(unreadableBody(request, 'the request body was aborted'));
    });
    stream.pipe(busboy);
  });
}

/** Removes the request's upload folder (once every part using it has settled). */
async function removeUploadDir(request: FastifyRequest): Promise<void> {
  const dir = request.irisUploadDir;
  request.irisUploadDir = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError('payloadTooLarge', `request body must be at most ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
