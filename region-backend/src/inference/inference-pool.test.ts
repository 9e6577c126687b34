import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool, InferenceTimeoutError } from './inference-pool.js';

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

  it('terminates and replaces a thread whose task runs past its time limit; other tasks go on', async () => {
    const before = await pool.run<{ threadId: number }>('ping', 0);
    const stuck = pool.run('ping', { blockMs: 60_000 }, { timeoutMs: 300 });
    const other = pool.run<{ pong: number }>('ping', 7);
    await expect(stuck).rejects.toBeInstanceOf(InferenceTimeoutError);
    await expect(stuck).rejects.toThrow(/within 300 ms/);
    expect((await other).pong).toBe(7);
    // The pool is whole again: both threads answer, one of them a fresh thread.
    const after = await Promise.all([1, 2, 3, 4].map((n) => pool.run<{ threadId: number }>('ping', n, { timeoutMs: 10_000 })));
    expect(new Set(after.map((r) => r.threadId)).size).toBeGreaterThanOrEqual(1);
    expect(after.every((r) => r.threadId > 0)).toBe(true);
    expect(before.threadId).toBeGreaterThan(0);
  });

  it('applies the pool default time limit', async () => {
    const limited = new InferencePool(1, { taskTimeoutMs: 200 });
    try {
      await expect(limited.run('ping', { blockMs: 30_000 })).rejects.toBeInstanceOf(InferenceTimeoutError);
      expect((await limited.run<{ pong: number }>('ping', 3)).pong).toBe(3);
    } finally {
      await limited.close();
    }
  });
});
