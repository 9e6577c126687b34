import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from './inference-pool.js';

describe('InferencePool', () => {
  const pool = new InferencePool(2);
  afterAll(() => pool.close());

  it('runs tasks on worker threads, not the main thread', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => pool.run<{ pong: number; threadId: number }>('ping', n)));
    expect(results.map((r) => r.pong)).toEqual([1, 2, 3, 4]);
    for (const r of results) expect(r.threadId).toBeGreaterThan(0);
  });

  it('rejects unknown tasks', async () => {
    await expect(pool.run('no-such-task', null)).rejects.toThrow(/unknown inference task/);
  });
});
