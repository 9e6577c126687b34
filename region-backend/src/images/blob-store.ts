/**
 * Where image bytes live once downloaded: a key → bytes store. The file-system store is the default; a
 * store on S3-compatible object storage plugs in by implementing the same interface (see
 * docs/image-fetching.md): `put` = PutObject, `get` = GetObject (null on NoSuchKey), `has` = HeadObject,
 * `delete` = DeleteObject, `stream` = the GetObject body. Object stores write atomically already.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDirectory } from '../util/durable-files.js';

export interface BlobStore {
  /** Stores the bytes under the key, replacing what was there; readers see the old or the new bytes, never a part. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under the key, or null when there are none. */
  get(key: string): Promise<Uint8Array | null>;
  has(key: string): Promise<boolean>;
  /** Removes the key; true when something was removed. */
  delete(key: string): Promise<boolean>;
  /** A stream of the bytes (for serving large blobs without buffering), or null when absent. */
  stream?(key: string): Promise<NodeJS.ReadableStream | null>;
  /** Every stored key and when it was last written (ListObjectsV2 on object storage). */
  list?(): AsyncIterable<{ key: string; modifiedMs: number }>;
}

/** The content key of some bytes: lowercase hex SHA-256. Equal bytes share one blob. */
export function contentKey(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stores bytes under their content key (skipping the write when they are already there) and returns the key. */
export async function putContent(store: BlobStore, bytes: Uint8Array): Promise<string> {
  const key = contentKey(bytes);
  if (!(await store.has(key))) await store.put(key, bytes);
  return key;
}

// Lowercase letters, digits and a few separators: no path traversal, same meaning on every file system.
const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{3,199}$/;

export class InvalidBlobKeyError extends Error {
  override readonly name = 'InvalidBlobKeyError';
}

const TEMP_DIR = '.tmp';

/**
 * Blobs as files under `rootDir/ab/cd/<key>` (two levels of two-character shards keep directories small
 * at millions of keys). Writes go to a temporary file in `rootDir/.tmp`, are flushed to disk, then
 * renamed into place, which is atomic on one file system.
 */
export class FileSystemBlobStore implements BlobStore {
  private readonly root: string;

  constructor(
    rootDir: string,
    private readonly options: { fsync?: boolean } = {},
  ) {
    this.root = path.resolve(rootDir);
  }

  /** The file that holds a key (exported for tests and operators' tooling). */
  pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new InvalidBlobKeyError(`invalid blob key: ${JSON.stringify(key.slice(0, 40))}`);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.pathOf(key);
    const tempDir = path.join(this.root, TEMP_DIR);
    await Promise.all([mkdir(path.dirname(target), { recursive: true }), mkdir(tempDir, { recursive: true })]);
    const temp = path.join(tempDir, `${key}.${process.pid}.${randomBytes(6).toString('hex')}`);
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      if (this.options.fsync !== false) await handle.sync();
    } catch (err) {
      await handle.close();
      await rm(temp, { force: true });
      throw err;
    }
    await handle.close();
    try {
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    // The rename itself must be durable before a record refers to the key.
    if (this.options.fsync !== false) await fsyncDirectory(path.dirname(target));
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      const buf = await readFile(this.pathOf(key));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      await unlink(this.pathOf(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async stream(key: string): Promise<ReadStream | null> {
    const file = this.pathOf(key);
    if (!(await this.has(key))) return null;
    return createReadStream(file);
  }

  async *list(): AsyncGenerator<{ key: string; modifiedMs: number }> {
    const shards = (dir: string) => readdir(dir).then((names) => names.filter((n) => /^[a-z0-9]{2}$/.test(n)).sort(), () => [] as string[]);
    for (const first of await shards(this.root)) {
      for (const second of await shards(path.join(this.root, first))) {
        const dir = path.join(this.root, first, second);
        for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
          if (!KEY_PATTERN.test(name) || name.slice(0, 2) !== first || name.slice(2, 4) !== second) continue;
          const info = await stat(path.join(dir, name)).catch(() => null);
          if (info?.isFile()) yield { key: name, modifiedMs: info.mtimeMs };
        }
      }
    }
  }

  /** Removes temporary files left by writers that died mid-write (older than `olderThanMs`). */
  async sweepTemporary(olderThanMs = 60 * 60 * 1000): Promise<number> {
    const tempDir = path.join(this.root, TEMP_DIR);
    let names: string[];
    try {
      names = await readdir(tempDir);
    } catch {
      return 0;
    }
    let removed = 0;
    const cutoff = Date.now() - olderThanMs;
    for (const name of names) {
      const file = path.join(tempDir, name);
      const info = await stat(file).catch(() => null);
      if (info && info.mtimeMs < cutoff) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
