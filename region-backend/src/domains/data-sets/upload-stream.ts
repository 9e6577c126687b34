/**
 * Opens an uploaded bulk file as a text byte stream: plain, gzip, or a `.tar.gz` holding one file.
 * Told apart by content (gzip magic, then the tar `ustar` magic), never by the file name.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { PassThrough, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { inflatedLimit } from './bulk-limits.js';

const GZIP_MAGIC = [0x1f, 0x8b];
const PEEK_BYTES = 64 * 1024;
/** Compressed bytes inflated to look for the tar magic: at most ~4 MB of output however it was packed. */
const PEEK_GZIP_BYTES = 4 * 1024;

export class UploadFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadFormatError';
  }
}

/** An uploaded file where the body reader left it: its bytes in memory, or the path of its temp file. */
export type UploadSource = string | Uint8Array;

/** The bytes held in memory, as a Buffer over the same memory. */
const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

async function readHead(source: UploadSource, bytes: number): Promise<Buffer> {
  if (typeof source !== 'string') return bufferOf(source).subarray(0, bytes);
  const handle = await open(source, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isTar(head: Buffer): boolean {
  return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';
}

/** The first regular file of a tar stream (macOS `._` resource forks skipped), as a stream. */
function firstTarEntry(source: Readable): Readable {
  const out = new PassThrough();
  const extract = tar.extract();
  let found = false;
  extract.on('entry', (header, stream, next) => {
    const base = header.name.split('/').pop() ?? '';
    if (!found && header.type === 'file' && !base.startsWith('._')) {
      found = true;
      stream.on('data', (chunk: unknown) => {
        if (!out.write(chunk as Buffer)) {
          stream.pause();
          out.once('drain', () => stream.resume());
        }
      });
      stream.on('end', () => {
        out.end();
        // the rest of the archive is read and ignored
        next();
      });
      stream.on('error', (err: Error) => out.destroy(err));
      return;
    }
    stream.on('end', () => next());
    stream.resume();
  });
  extract.on('finish', () => {
    if (!found) out.destroy(new UploadFormatError('the archive holds no file'));
  });
  extract.on('error', (err: Error) => out.destroy(new UploadFormatError(`unreadable archive: ${err.message}`)));
  source.on('error', (err) => out.destroy(new UploadFormatError(`unreadable archive: ${err.message}`)));
  source.pipe(extract);
  return out;
}

/** Passes at most `limit` bytes through, then fails the stream: the cap on what a gzip upload inflates to. */
function inflateCap(limit: number): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limit) done(new UploadFormatError(`the file inflates to more than ${Math.floor(limit / (1024 * 1024))} MB; a compressed upload may inflate at most 100 times its size and to 256 MB`));
      else done(null, chunk);
    },
  });
}

function streamOf(source: UploadSource): Readable {
  return typeof source === 'string' ? createReadStream(source) : Readable.from([bufferOf(source)]);
}

async function sizeOf(source: UploadSource): Promise<number> {
  return typeof source === 'string' ? (await stat(source)).size : source.byteLength;
}

/** The text content of an uploaded bulk file, streamed from memory or from disk. */
export async function openUploadStream(source: UploadSource): Promise<Readable> {
  const head = await readHead(source, PEEK_BYTES);
  const gzipped = head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  if (!gzipped) return isTar(head) ? firstTarEntry(streamOf(source)) : streamOf(source);

  let inflatedHead: Buffer;
  try {
    // A partial gzip member inflates with a sync flush: enough to look for the tar magic.
    inflatedHead = zlib.gunzipSync(head.subarray(0, PEEK_GZIP_BYTES), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 8 * 1024 * 1024 });
  } catch (err) {
    throw new UploadFormatError(`unreadable gzip file: ${(err as Error).message}`);
  }
  const gunzip = zlib.createGunzip();
  const cap = inflateCap(inflatedLimit(await sizeOf(source)));
  const raw = streamOf(source);
  const inflated = raw.pipe(gunzip).pipe(cap);
  // A reader that stops early (a bad line, a bound) must not leave the chain inflating or the file open.
  const stop = () => [raw, gunzip, cap].forEach((s) => s.destroy());
  gunzip.on('error', (err) => cap.destroy(new UploadFormatError(`unreadable gzip file: ${err.message}`)));
  if (isTar(inflatedHead)) return firstTarEntry(inflated).once('close', stop);
  const out = new PassThrough().once('close', stop);
  cap.on('error', (err) => out.destroy(err));
  return inflated.pipe(out);
}
