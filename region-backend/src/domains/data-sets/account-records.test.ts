/**
 * The live-records count per account (account_records, kept by triggers on data_set_records and data_sets)
 * always equals the count it replaces, whatever adds, soft deletes, purges, hard deletes, status changes and
 * set deletions (their records going by cascade) run. Real PostgreSQL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { liveRecords } from './record-quotas.js';

type Op =
  | { kind: 'add'; set: number; n: number }
  | { kind: 'softDelete'; set: number; n: number }
  | { kind: 'purge'; set: number }
  | { kind: 'hardDelete'; set: number; n: number }
  | { kind: 'claim'; set: number }
  | { kind: 'deleteSet'; set: number };

const set = fc.integer({ min: 0, max: 3 });
const n = fc.integer({ min: 1, max: 6 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), set, n }),
  fc.record({ kind: fc.constant('softDelete' as const), set, n }),
  fc.record({ kind: fc.constant('purge' as const), set }),
  fc.record({ kind: fc.constant('hardDelete' as const), set, n }),
  fc.record({ kind: fc.constant('claim' as const), set }),
  fc.record({ kind: fc.constant('deleteSet' as const), set }),
);

describe('live records per account', () => {
  const db = testDatabasePool();

  it('the kept count equals the count of live records after any sequence of changes', async () => {
    let run = 0;
    let url = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        // Sets 0 and 1 belong to one account, 2 and 3 to another; accounts of this run only.
        const base = 5000 + 10 * ++run;
        const setId = (s: number) => `r${run}-s${s}`;
        for (const o of ops) {
          const id = setId(o.set);
          if (o.kind === 'add') {
            await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, $2, 'image_set', 's') ON CONFLICT DO NOTHING`, [id, base + (o.set < 2 ? 1 : 2)]);
            await db().query(`INSERT INTO data_set_records (set_id, url) SELECT $1, 'http://x/' || ($2::int + g) FROM generate_series(1, $3) g`, [id, url, o.n]);
            url += o.n;
          } else if (o.kind === 'softDelete') {
            await db().query(`UPDATE data_set_records SET deleted_at = now() WHERE id IN (SELECT id FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL LIMIT $2)`, [id, o.n]);
          } else if (o.kind === 'purge') {
            await db().query('DELETE FROM data_set_records WHERE set_id = $1 AND deleted_at IS NOT NULL', [id]);
          } else if (o.kind === 'hardDelete') {
            await db().query(`DELETE FROM data_set_records WHERE id IN (SELECT id FROM data_set_records WHERE set_id = $1 AND deleted_at IS NULL LIMIT $2)`, [id, o.n]);
          } else if (o.kind === 'claim') {
            await db().query(`UPDATE data_set_records SET status = 'downloading', attempts = attempts + 1 WHERE set_id = $1 AND deleted_at IS NULL`, [id]);
          } else {
            await db().query('DELETE FROM data_sets WHERE id = $1', [id]);
          }
        }
        for (const account of [base + 1, base + 2]) {
          const counted = await db().query<{ n: string }>(
            'SELECT count(*) AS n FROM data_set_records r JOIN data_sets s ON s.id = r.set_id WHERE s.account_id = $1 AND r.deleted_at IS NULL',
            [account],
          );
          expect(await liveRecords(db(), account)).toBe(Number(counted.rows[0]!.n));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('counts a transaction\'s own adds before it commits, and nothing of a rolled-back one', async () => {
    await db().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ('tx-set', 4242, 'image_set', 's')`);
    const client = await db().connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO data_set_records (set_id, url) SELECT 'tx-set', 'http://t/' || g FROM generate_series(1, 7) g`);
      expect(await liveRecords(client, 4242)).toBe(7);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await liveRecords(db(), 4242)).toBe(0);
  });
});
