/**
 * Opens an uploaded bulk file as a text byte stream: plain, gzip, or a `.tar.gz` holding one file.
 * Told apart by content (gzip magic, then the tar `ustar` magic), never by the file name.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';

const GZIP_MAGIC = [0x1f, 0x8b];
const PEEK_BYTES = 64 * 1024;

export class UploadFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadFormatError';
  }
}

async function readHead(filePath: string, bytes: number): Promise<Buffer> {
  const handle = await open(filePath, 'r');
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

/** The text content of an uploaded bulk file, streamed from disk. */
export async function openUploadStream(filePath: string): Promise<Readable> {
  const head = await readHead(filePath, PEEK_BYTES);
  const gzipped = head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  if (!gzipped) return isTar(head) ? firstTarEntry(createReadStream(filePath)) : createReadStream(filePath);

  let inflatedHead: Buffer;
  try {
    // A partial gzip member inflates with a sync flush: enough to look for the tar magic.
    inflatedHead = zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch (err) {
    throw new UploadFormatError(`unreadable gzip file: ${(err as Error).message}`);
  }
  const gunzip = zlib.createGunzip();
  const inflated = createReadStream(filePath).pipe(gunzip);
  if (isTar(inflatedHead)) return firstTarEntry(inflated);
  const out = new PassThrough();
  gunzip.on('error', (err) => out.destroy(new UploadFormatError(`unreadable gzip file: ${err.message}`)));
  return inflated.pipe(out);
}
