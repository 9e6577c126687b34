/**
 * Deletes blobs nothing refers to any more. Each blob is handled in two short transactions under its
 * advisory lock (the one writers hold while they check or write its file):
 *   1. row FOR UPDATE (waits for references being recorded), prune the URL cache entries no live record
 *      uses, and when no reference is left mark it 'deleting' and commit;
 *   2. if still 'deleting' (no writer revived it), unlink the file, then delete the row and the caches
 *      derived from the image, and commit.
 * A crash after step 1 leaves a 'deleting' row that the next run finishes; a crash during step 2 leaves the
 * row 'deleting' with or without the file, finished the same way; a file whose row is gone (a writer that died
 * before committing, or an unlink lost with the power) is removed by `sweepFiles`. No step leaves a live
 * reference to a missing file: references require a 'live' row, and a writer re-creates a missing file.
 * Nothing is deleted while a backup holds the lease `blob-gc-pause` (docs/backup.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { BlobStore } from '../../images/blob-store.js';
import { lockBlob } from './blob-refs.repo.js';

export type CollectStep = 'checked' | 'marked' | 'unlinked' | 'deleted';

export interface BlobCollectorOptions {
  graceSeconds: number;
  /** Blobs per query. */
  batch: number;
  log?: FastifyBaseLogger;
  /** Called between the steps (crash tests widen the windows with it). */
  onStep?: (step: CollectStep, key: string) => Promise<void> | void;
}

export interface CollectResult {
  deleted: number;
  bytes: number;
  kept: number;
}

type Outcome = { deleted: false } | { deleted: true; bytes: number };

/** While the lease `blob-gc-pause` runs (set by a backup), no blob is deleted. */
export const PAUSE_LEASE = 'blob-gc-pause';

async function collectionPaused(db: Pick<pg.Pool, 'query'>): Promise<boolean> {
  const { rows } = await db.query<{ paused: boolean }>('SELECT EXISTS (SELECT 1 FROM leases WHERE name = $1 AND expires_at > now()) AS paused', [PAUSE_LEASE]);
  return rows[0]!.paused;
}

const REFERENCED = `EXISTS (SELECT 1 FROM data_set_records WHERE blob_key = $1 AND deleted_at IS NULL)
  OR EXISTS (SELECT 1 FROM url_blobs WHERE blob_key = $1)
  OR EXISTS (SELECT 1 FROM search_index_items WHERE blob_key = $1 AND deleted_at IS NULL)`;

export class BlobCollector {
  constructor(
    private readonly pool: pg.Pool,
    private readonly store: BlobStore,
    private readonly options: BlobCollectorOptions,
  ) {}

  /**
   * Handles every blob that lost a reference or whose grace period ended, batch by batch, until none is due
   * (at most `maxBatches` batches per run, so a run ends in bounded time; the next run continues).
   */
  async collectDue(maxBatches = 50): Promise<CollectResult> {
    const total: CollectResult = { deleted: 0, bytes: 0, kept: 0 };
    for (let i = 0; i < maxBatches && !(await collectionPaused(this.pool)); i++) {
      const queued = await this.pool.query<{ id: string; blob_key: string }>('SELECT id, blob_key FROM blob_gc_queue ORDER BY id LIMIT $1', [this.options.batch]);
      const due = await this.pool.query<{ blob_key: string }>('SELECT blob_key FROM stored_blobs WHERE gc_after <= now() ORDER BY gc_after LIMIT $1', [this.options.batch]);
      const keys = new Set([...queued.rows.map((r) => r.blob_key), ...due.rows.map((r) => r.blob_key)]);
      if (!keys.size) break;
      for (const key of keys) {
        const outcome = await this.collect(key);
        if (outcome.deleted) {
          total.deleted++;
          total.bytes += outcome.bytes;
        } else total.kept++;
      }
      if (queued.rows.length) await this.pool.query('DELETE FROM blob_gc_queue WHERE id = ANY($1::bigint[])', [queued.rows.map((r) => r.id)]);
    }
    return total;
  }

  /** Deletes one blob if nothing refers to it (idempotent; safe against writers, referrers and other collectors). */
  async collect(key: string): Promise<Outcome> {
    const marked = await this.inLockedTransaction(key, async (client) => {
      const row = await client.query<{ state: string; young: boolean }>(
        `SELECT state, touched_at > now() - make_interval(secs => $2) AS young FROM stored_blobs WHERE blob_key = $1 FOR UPDATE`,
        [key, this.options.graceSeconds],
      );
      const blob = row.rows[0];
      if (!blob) return false;
      if (blob.state === 'deleting') return true;
      // Checked under the blob's lock: a backup that paused collection before its dump finds every blob the dump
      // refers to still on disk (docs/backup.md). Looked at again a minute later.
      if (await collectionPaused(client)) {
        await client.query(`UPDATE stored_blobs SET gc_after = now() + interval '1 minute' WHERE blob_key = $1`, [key]);
        return false;
      }
      if (blob.young) {
        await client.query('UPDATE stored_blobs SET gc_after = touched_at + make_interval(secs => $2) WHERE blob_key = $1', [key, this.options.graceSeconds]);
        return false;
      }
      // URL cache entries whose URL no live record of the account has any more (old enough that an add
      // between downloading and recording is not cut short): they count against the stored bytes.
      await client.query(
        `DELETE FROM url_blobs u
         WHERE u.blob_key = $1 AND u.created_at <= now() - make_interval(secs => $2)
           AND NOT EXISTS (SELECT 1 FROM data_sets s JOIN data_set_records r ON r.set_id = s.id AND r.url = u.url AND r.deleted_at IS NULL
                           WHERE s.account_id = u.account_id)`,
        [key, this.options.graceSeconds],
      );
      const used = await client.query<{ used: boolean }>(`SELECT ${REFERENCED} AS used`, [key]);
      if (used.rows[0]!.used) {
        // Still in use; URL cache entries too young to prune get another look once they are old enough.
        await client.query(
          `UPDATE stored_blobs SET gc_after = (SELECT max(created_at) + make_interval(secs => $2) FROM url_blobs
                                              WHERE blob_key = $1 AND created_at > now() - make_interval(secs => $2))
           WHERE blob_key = $1`,
          [key, this.options.graceSeconds],
        );
        return false;
      }
      await client.query("UPDATE stored_blobs SET state = 'deleting', gc_after = now() WHERE blob_key = $1", [key]);
      return true;
    });
    await this.options.onStep?.('checked', key);
    if (!marked) return { deleted: false };
    await this.options.onStep?.('marked', key);
    const outcome = await this.inLockedTransaction(key, async (client): Promise<Outcome> => {
      const row = await client.query<{ state: string; bytes: string }>('SELECT state, bytes FROM stored_blobs WHERE blob_key = $1 FOR UPDATE', [key]);
      if (row.rows[0]?.state !== 'deleting') return { deleted: false };
      await this.store.delete(key);
      await this.options.onStep?.('unlinked', key);
      await client.query('DELETE FROM image_embeddings WHERE blob_key = $1', [key]);
      await client.query('DELETE FROM classifier_features WHERE blob_key = $1', [key]);
      await client.query('DELETE FROM stored_blobs WHERE blob_key = $1', [key]);
      return { deleted: true, bytes: Number(row.rows[0].bytes) };
    });
    if (outcome.deleted) await this.options.onStep?.('deleted', key);
    return outcome;
  }

  /** Queues every blob no live record or index item refers to (a full pass, for anything a trigger missed). */
  async queueUnreferenced(): Promise<number> {
    const result = await this.pool.query(
      `INSERT INTO blob_gc_queue (blob_key)
       SELECT b.blob_key FROM stored_blobs b
       WHERE b.gc_after IS NULL
         AND NOT EXISTS (SELECT 1 FROM data_set_records r WHERE r.blob_key = b.blob_key AND r.deleted_at IS NULL)
         AND NOT EXISTS (SELECT 1 FROM search_index_items i WHERE i.blob_key = b.blob_key AND i.deleted_at IS NULL)`,
    );
    return result.rowCount ?? 0;
  }

  /** Removes files no `stored_blobs` row knows (older than the grace period); returns how many. */
  async sweepFiles(): Promise<number> {
    if (!this.store.list) return 0;
    let removed = 0;
    let chunk: { key: string; modifiedMs: number }[] = [];
    const flush = async () => {
      const known = await this.pool.query<{ blob_key: string }>('SELECT blob_key FROM stored_blobs WHERE blob_key = ANY($1::text[])', [chunk.map((c) => c.key)]);
      const registered = new Set(known.rows.map((r) => r.blob_key));
      const cutoff = Date.now() - this.options.graceSeconds * 1000;
      for (const file of chunk) {
        if (registered.has(file.key) || file.modifiedMs > cutoff) continue;
        const gone = await this.inLockedTransaction(file.key, async (client) => {
          const row = await client.query('SELECT 1 FROM stored_blobs WHERE blob_key = $1', [file.key]);
          return row.rowCount ? false : this.store.delete(file.key);
        });
        if (gone) removed++;
      }
      chunk = [];
    };
    for await (const file of this.store.list()) {
      chunk.push(file);
      if (chunk.length >= this.options.batch) await flush();
    }
    if (chunk.length) await flush();
    return removed;
  }

  private async inLockedTransaction<T>(key: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await lockBlob(client, key);
      const value = await fn(client);
      await client.query('COMMIT');
      return value;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
