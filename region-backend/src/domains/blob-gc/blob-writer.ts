/**
 * Stores image bytes in the blob store under their content key, registered in `stored_blobs` so the collector
 * knows the file. The file is checked (and written when missing) under the blob's advisory lock, which the
 * collector also holds while it unlinks: an upload of the same content as a blob being collected either
 * brings that blob back to life or writes the file again; it never returns a key whose file is gone.
 */
import type pg from 'pg';
import { contentKey, type BlobStore } from '../../images/blob-store.js';
import { lockBlob, registerBlob } from './blob-refs.repo.js';

export class BlobWriter {
  constructor(
    private readonly pool: pg.Pool,
    private readonly store: BlobStore,
    /** Collection waits this long after a write, so the caller has time to record its reference. */
    private readonly graceSeconds: number,
  ) {}

  /** Stores the bytes (once per content) and returns their key. */
  async put(bytes: Uint8Array): Promise<string> {
    const key = contentKey(bytes);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await lockBlob(client, key);
      await registerBlob(client, key, bytes.byteLength, this.graceSeconds);
      // Under the lock no collector is unlinking this file, and files appear only by an atomic rename of a
      // flushed temporary file: one that exists is complete and stays.
      if (!(await this.store.has(key))) await this.store.put(key, bytes);
      await client.query('COMMIT');
      return key;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
