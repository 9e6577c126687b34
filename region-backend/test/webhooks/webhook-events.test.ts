/**
 * The state changes that report themselves: each writes its event in its own transaction, once per change,
 * for the endpoints of the account subscribed to it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { markFailed } from '../../src/domains/batch/batch-task.repo.js';
import { failCustomService } from '../../src/domains/custom-training/custom-service.repo.js';
import { markCaughtUp } from '../../src/domains/search-services/index-items.repo.js';
import { testDatabasePool } from '../support/test-database.js';

const pool = testDatabasePool();
const ACCOUNT = 9;

async function queued(type: string): Promise<Record<string, unknown>[]> {
  const { rows } = await pool().query<{ body: string }>('SELECT body FROM webhook_deliveries WHERE event_type = $1 ORDER BY id', [type]);
  return rows.map((r) => JSON.parse(r.body).data);
}

beforeAll(async () => {
  await pool().query(
    `INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES
       ('all', $1, 'https://hooks.example/a', '{batch_task.finished,custom_training.finished,search_service.indexed}', 's'),
       ('other-account', $1 + 1, 'https://hooks.example/b', '{batch_task.finished,custom_training.finished,search_service.indexed}', 's')`,
    [ACCOUNT],
  );
});

describe('events written with their state change', () => {
  it('a batch task failing queues one batch_task.finished, and only once', async () => {
    await pool().query(`INSERT INTO batch_tasks (id, account_id, service_id, state, total) VALUES ('task1', $1, '_0000059', 'STARTED', 3)`, [ACCOUNT]);
    expect(await inTransaction(pool(), (c) => markFailed(c, 'task1', 'the service went away'))).toBe(true);
    expect(await inTransaction(pool(), (c) => markFailed(c, 'task1', 'again'))).toBe(false);
    expect(await queued('batch_task.finished')).toEqual([
      expect.objectContaining({ task_id: 'task1', service_id: '_0000059', state: 'FAILURE', total: 3, message: 'the service went away' }),
    ]);
  });

  it('a training failing queues one custom_training.finished', async () => {
    await pool().query(`INSERT INTO custom_services (id, account_id, name, training_set_id, status) VALUES ('svc1', $1, 'n', 'ts1', 'preparing')`, [ACCOUNT]);
    expect(await failCustomService(pool(), 'svc1', 'too few pictures')).toBe(true);
    expect(await failCustomService(pool(), 'svc1', 'again')).toBe(false);
    expect(await queued('custom_training.finished')).toEqual([expect.objectContaining({ service_id: 'svc1', status: 'failed', message: 'too few pictures' })]);
  });

  it('a search service catching up queues search_service.indexed when its index changed since the last time', async () => {
    await pool().query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ('set1', $1, 'image_set', 's')`, [ACCOUNT]);
    await pool().query(`INSERT INTO search_services (id, account_id, kind, name, scenario, set_id, pipeline, n_indexed) VALUES ('ss1', $1, 'image_set', 'n', 'x', 'set1', 'p', 4)`, [ACCOUNT]);
    await markCaughtUp(pool(), 'ss1');
    await markCaughtUp(pool(), 'ss1');
    expect(await queued('search_service.indexed')).toHaveLength(1);
    await pool().query(`UPDATE search_services SET indexed_at = now() + interval '1 second', n_indexed = 5 WHERE id = 'ss1'`);
    await markCaughtUp(pool(), 'ss1');
    expect(await queued('search_service.indexed')).toEqual([expect.objectContaining({ service_id: 'ss1', n_indexed: 4 }), expect.objectContaining({ service_id: 'ss1', n_indexed: 5 })]);
  });

  it('deliveries go to the endpoints of the account whose work it was', async () => {
    const { rows } = await pool().query<{ endpoint_id: string }>('SELECT DISTINCT endpoint_id FROM webhook_deliveries');
    expect(rows.map((r) => r.endpoint_id)).toEqual(['all']);
  });
});
