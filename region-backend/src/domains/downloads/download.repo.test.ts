/**
 * Claiming a download in a large set touches the records still to download, not the ones done: the claim
 * reads the partial index of unfinished records in due order. Real PostgreSQL; the plan's own row counts.
 */
import { describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { CLAIM_SQL, claimRecords, releaseClaims } from './download.repo.js';

interface PlanNode {
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Rows of data_set_records every scan node of the plan read (returned + filtered out). */
function recordRowsRead(node: PlanNode): number {
  const own = node['Relation Name'] === 'data_set_records' ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + recordRowsRead(child), 0);
}

describe('download claims', () => {
  const db = testDatabasePool(2);

  it('read a few rows of a set of 20,000 whose first 19,000 are downloaded, and claim in due order', async () => {
    const setId = newResourceId();
    await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, 7, 'image_set', 'big')`, [setId]);
    await db().query(
      `INSERT INTO data_set_records (set_id, url, status, next_attempt_at)
       SELECT $1, 'http://x/' || g, CASE WHEN g < 19000 THEN 'downloaded' ELSE 'pending' END, now() - make_interval(secs => 20000 - g)
       FROM generate_series(0, 19999) g`,
      [setId],
    );
    await db().query('ANALYZE data_set_records');
    const client = await db().connect();
    try {
      await client.query('BEGIN');
      const plan = (await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM_SQL}`, [setId, 1, 60])).rows[0]!['QUERY PLAN'][0]!.Plan;
      await client.query('ROLLBACK');
      expect(recordRowsRead(plan)).toBeLessThan(50);
    } finally {
      client.release();
    }
    const claimed = await claimRecords(db(), setId, 3, 60);
    expect(claimed.map((r) => r.url)).toEqual(['http://x/19000', 'http://x/19001', 'http://x/19002']);
    expect(claimed.every((r) => Number(r.account_id) === 7 && r.attempts === 1)).toBe(true);
  });

  it('gives back claimed records not started: pending, claimable again, the attempt not counted', async () => {
    const setId = newResourceId();
    await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, 7, 'image_set', 'wave')`, [setId]);
    await db().query(`INSERT INTO data_set_records (set_id, url) SELECT $1, 'http://y/' || g FROM generate_series(0, 3) g`, [setId]);
    const wave = await claimRecords(db(), setId, 4, 60);
    expect(wave).toHaveLength(4);
    await releaseClaims(db(), wave.slice(1).map((r) => r.id));
    const again = await claimRecords(db(), setId, 4, 60);
    expect(again.map((r) => r.id).sort()).toEqual(wave.slice(1).map((r) => r.id).sort());
    expect(again.every((r) => r.attempts === 1)).toBe(true);
  });
});
