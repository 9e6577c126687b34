/**
 * The stored-bytes count (account_stored_bytes, kept by a trigger on url_blobs) always equals the sum it
 * replaces, whatever inserts, re-downloads (upserts), deletes and collector-style deletes by blob run, and
 * the quota check reads it. Real PostgreSQL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { storedBytesBudget } from '../downloads/download.repo.js';
import { storedBytes } from './record-quotas.js';

type Op =
  | { kind: 'put'; account: number; url: number; blob: number; bytes: number }
  | { kind: 'delete'; account: number; url: number }
  | { kind: 'collect'; blob: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), account: fc.integer({ min: 1, max: 3 }), url: fc.integer({ min: 0, max: 5 }), blob: fc.integer({ min: 0, max: 4 }), bytes: fc.integer({ min: 0, max: 5_000_000 }) }),
  fc.record({ kind: fc.constant('delete' as const), account: fc.integer({ min: 1, max: 3 }), url: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('collect' as const), blob: fc.integer({ min: 0, max: 4 }) }),
);

describe('stored bytes per account', () => {
  const db = testDatabasePool(2);

  it('the kept count equals the sum of the URL cache after any sequence of changes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        // Accounts of this run only, so runs do not see each other's rows.
        const base = 1000 * ++run;
        for (const o of ops) {
          if (o.kind === 'put') {
            await db().query(
              `INSERT INTO url_blobs (account_id, url, blob_key, width, height, bytes) VALUES ($1, $2, $3, 1, 1, $4)
               ON CONFLICT (account_id, url) DO UPDATE SET blob_key = EXCLUDED.blob_key, bytes = EXCLUDED.bytes`,
              [base + o.account, `u${o.url}`, `${base}-b${o.blob}`, o.bytes],
            );
          } else if (o.kind === 'delete') {
            await db().query('DELETE FROM url_blobs WHERE account_id = $1 AND url = $2', [base + o.account, `u${o.url}`]);
          } else {
            await db().query('DELETE FROM url_blobs WHERE blob_key = $1', [`${base}-b${o.blob}`]);
          }
        }
        for (let account = base + 1; account <= base + 3; account++) {
          const sum = await db().query<{ bytes: string }>('SELECT coalesce(sum(bytes), 0) AS bytes FROM url_blobs WHERE account_id = $1', [account]);
          expect(await storedBytes(db(), account)).toBe(Number(sum.rows[0]!.bytes));
          expect((await storedBytesBudget(db(), account, 7)).used).toBe(Number(sum.rows[0]!.bytes));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a rolled-back change leaves the count as it was; an account never seen counts 0', async () => {
    await db().query(`INSERT INTO url_blobs (account_id, url, blob_key, width, height, bytes) VALUES (900001, 'a', 'k', 1, 1, 500)`);
    const client = await db().connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO url_blobs (account_id, url, blob_key, width, height, bytes) VALUES (900001, 'b', 'k', 1, 1, 700)`);
      expect(await storedBytes(client, 900001)).toBe(1200);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await storedBytes(db(), 900001)).toBe(500);
    expect(await storedBytes(db(), 900002)).toBe(0);
  });
});
