import { describe, expect, it } from 'vitest';
import { newResourceId } from '@iris/shared';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { claimItems } from './batch-item.repo.js';

describe('batch line claims', () => {
  const db = testDatabasePool(4);

  it('claims exactly the asked number of lines, whatever plan the planner picks', async () => {
    const taskId = newResourceId();
    const lines = 2_000;
    await db().query(`INSERT INTO batch_tasks (id, account_id, service_id, state, total) VALUES ($1, 1, '_0000049', 'STARTED', $2)`, [taskId, lines]);
    await db().query(`INSERT INTO batch_items (task_id, line, url) SELECT $1, g, 'http://x/' || g FROM generate_series(0, $2 - 1) g`, [taskId, lines]);
    await db().query('ANALYZE batch_items');
    // Plans that rescan the pick per row (nested loops) are the ones that used to claim more than asked.
    for (const settings of ['', 'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off;']) {
      const client = await db().connect();
      try {
        await client.query('BEGIN');
        if (settings) await client.query(settings);
        const claimed = await claimItems(client, taskId, 3, 60, newResourceId());
        expect(claimed).toHaveLength(3);
        const running = await client.query(`SELECT count(*)::int AS n FROM batch_items WHERE task_id = $1 AND state = 'running'`, [taskId]);
        expect(running.rows[0].n).toBe(3);
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
    }
    // Concurrent claims never share a line.
    const claims = await Promise.all(Array.from({ length: 4 }, () => claimItems(db(), taskId, 5, 60, newResourceId())));
    const claimedLines = claims.flat().map((c) => c.line);
    expect(claimedLines).toHaveLength(20);
    expect(new Set(claimedLines).size).toBe(20);
  });
});
