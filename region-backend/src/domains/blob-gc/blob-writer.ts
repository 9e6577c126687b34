/**
 * Stores image bytes in the blob store under their content key, registered in `stored_blobs` so the collector
 * knows the file. The file is checked (and written when missing) under the blob's advisory lock, which the
 * collector also holds while it unlinks: an upload of the same content as a blob being collected either
 * brings that blob back to life or writes the file again; it never returns a key whose file is gone.
 */
import type pg from 'pg';
import { contentKey, type BlobStore } from '../../images/blob-store.js';
import { GroupCommit } from '../../util/group-commit.js';
import { lockBlobs, registerBlobs } from './blob-refs.repo.js';

export class BlobWriter {
  /** Writes arriving together share one transaction: their locks, registrations and commit. */
  private readonly writes: GroupCommit<null, { key: string; bytes: Uint8Array }>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: BlobStore,
    /** Collection waits this long after a write, so the caller has time to record its reference. */
    private readonly graceSeconds: number,
  ) {
    this.writes = new GroupCommit((_, blobs) => this.putAll(blobs));
  }

  /** Stores the bytes (once per content) and returns their key. */
  async put(bytes: Uint8Array): Promise<string> {
    const key = contentKey(bytes);
    await this.writes.submit(null, { key, bytes });
    return key;
  }

  /** One transaction for a group of blobs (a failure fails the group: nothing is registered). */
  private async putAll(group: { key: string; bytes: Uint8Array }[]): Promise<null[]> {
    const blobs = [...new Map(group.map((b) => [b.key, b])).values()];
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await lockBlobs(client, blobs.map((b) => b.key));
      await registerBlobs(client, blobs.map((b) => ({ key: b.key, bytes: b.bytes.byteLength })), this.graceSeconds);
      // Under the locks no collector is unlinking these files, and files appear only by an atomic rename of a
      // flushed temporary file: one that exists is complete and stays.
      await Promise.all(blobs.map(async ({ key, bytes }) => (await this.store.has(key)) || this.store.put(key, bytes)));
      await client.query('COMMIT');
      return group.map(() => null);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
