import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../inference/inference-pool.js';
import { backgroundPool, defaultBatchThreads } from './background-pool.js';

describe('background pool view', () => {
  const single = new InferencePool(1, { lowPriorityThreads: 0 }); // one tier: the order of one thread's queue
  const double = new InferencePool(2);
  afterAll(async () => {
    await Promise.all([single.close(), double.close()]);
  });

  it('queues batch jobs behind interactive ones, even when the analysis code asks for interactive', async () => {
    const batch = backgroundPool(single, 1);
    const order: string[] = [];
    const track = (name: string, job: Promise<unknown>) => job.then(() => order.push(name));
    // A query that keeps the only thread busy for a while (statistics of a 12-megapixel picture).
    const side = 3000;
    const blocker = track('first query', single.run('image-stats', { image: { data: new Uint8Array(side * side * 3).fill(90), width: side, height: side } }));
    const queuedBatch = track('batch', batch.run('ping', 1, { priority: 'interactive' }));
    // The batch job reaches the pool's queue first; the later query must still go before it.
    await new Promise((resolve) => setImmediate(resolve));
    const query = track('second query', single.run('ping', 2));
    await Promise.all([blocker, queuedBatch, query]);
    expect(order).toEqual(['first query', 'second query', 'batch']);
  });

  it('keeps batch jobs on at most the given number of threads', async () => {
    // Both low-priority threads (where batch work runs) loaded first.
    const loaded = new Set<number>();
    for (let round = 0; round < 50 && loaded.size < 2; round++) {
      for (const r of await Promise.all([1, 2, 3, 4].map(() => double.run('ping', { spinMs: 20 }, { priority: 'background' })))) loaded.add(r.threadId);
    }
    expect(loaded.size).toBe(2);
    const threadsUsed = async (maxThreads: number) => {
      const view = backgroundPool(double, maxThreads);
      const results = await Promise.all([1, 2, 3, 4].map((n) => view.run('ping', n)));
      return new Set(results.map((r) => r.threadId)).size;
    };
    expect(await threadsUsed(1)).toBe(1);
    expect(await threadsUsed(2)).toBe(2);
    expect(defaultBatchThreads(2)).toBe(1);
    expect(defaultBatchThreads(1)).toBe(1);
    expect(defaultBatchThreads(8)).toBe(7);
  });
});
