/**
 * Recording a wave of finished downloads in one transaction: every live record is marked downloaded with its
 * URL cache entry and the account's stored bytes; a record whose image was collected meanwhile gets its own
 * BlobGoneError and nothing written; a record deleted meanwhile stays deleted. Real PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { BlobGoneError } from '../blob-gc/blob-refs.repo.js';
import { cachedBlobAndBudget, claimRecords, completeRecords } from './download.repo.js';

describe('completeRecords', () => {
  const db = testDatabasePool(2);

  it('marks a wave downloaded at once, refusing only the records whose image is gone', async () => {
    const setId = newResourceId();
    const account = 700_000 + Math.floor(Math.random() * 100_000);
    await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, $2, 'image_set', 'wave')`, [setId, account]);
    await db().query(`INSERT INTO data_set_records (set_id, url) SELECT $1, 'http://x/' || g FROM generate_series(0, 5) g`, [setId]);
    const claimed = (await claimRecords(db(), setId, 6, 60)).sort((a, b) => a.id - b.id);
    expect(claimed).toHaveLength(6);
    const key = (n: number) => `${setId}-blob-${n}`;
    await db().query(`INSERT INTO stored_blobs (blob_key, bytes, state) SELECT $1 || '-blob-' || g, 100, CASE WHEN g = 2 THEN 'deleting' ELSE 'live' END FROM generate_series(0, 5) g`, [setId]);
    // Record 3 is deleted while its download runs; record 5 downloads the same URL as record 4 (one cache entry).
    await db().query(`UPDATE data_set_records SET deleted_at = now() WHERE id = $1`, [claimed[3]!.id]);
    claimed[5]!.url = claimed[4]!.url;

    const outcomes = await completeRecords(db(), setId, claimed.map((record, n) => ({ record, blob: { blobKey: key(n), width: 64, height: 48, bytes: 100 } })));

    expect(outcomes.map((o) => (o instanceof BlobGoneError ? 'gone' : o))).toEqual([null, null, 'gone', null, null, null]);
    const rows = (await db().query<{ id: string; status: string; blob_key: string | null; deleted: boolean }>(
      `SELECT id, status, blob_key, deleted_at IS NOT NULL AS deleted FROM data_set_records WHERE set_id = $1 ORDER BY id`, [setId],
    )).rows;
    expect(rows.map((r) => [r.status, r.blob_key, r.deleted])).toEqual([
      ['downloaded', key(0), false],
      ['downloaded', key(1), false],
      ['downloading', null, false],
      ['downloading', null, true],
      ['downloaded', key(4), false],
      ['downloaded', key(5), false],
    ]);
    const cache = (await db().query<{ url: string; blob_key: string }>(`SELECT url, blob_key FROM url_blobs WHERE account_id = $1 ORDER BY url`, [account])).rows;
    expect(cache).toEqual([
      { url: claimed[0]!.url, blob_key: key(0) },
      { url: claimed[1]!.url, blob_key: key(1) },
      { url: claimed[3]!.url, blob_key: key(3) },
      { url: claimed[4]!.url, blob_key: key(5) },
    ]);
    const bytes = await db().query<{ bytes: string }>(`SELECT bytes FROM account_stored_bytes WHERE account_id = $1`, [account]);
    expect(Number(bytes.rows[0]?.bytes)).toBe(400);
    // What the next download of these URLs reads first, in one statement: the cached copy and the budget.
    expect(await cachedBlobAndBudget(db(), account, claimed[1]!.url, 1000)).toEqual({ cached: { blobKey: key(1), width: 64, height: 48, bytes: 100 }, limit: 1000, used: 400 });
    expect(await cachedBlobAndBudget(db(), account, claimed[2]!.url, 1000)).toEqual({ cached: null, limit: 1000, used: 400 });
    await db().query(`UPDATE stored_blobs SET state = 'deleting' WHERE blob_key = $1`, [key(0)]);
    expect((await cachedBlobAndBudget(db(), account, claimed[0]!.url, 1000)).cached).toBeNull();
  });
});
