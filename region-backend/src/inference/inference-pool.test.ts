import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { FIRST_TIER_BOOST, InferencePool, InferenceTimeoutError, LOW_PRIORITY_NICE } from './inference-pool.js';
import { waitUntil } from '../../test/support/wait-for.js';

const spin = (ms: number) => ({ spinMs: ms });

/** Waits until every thread of the pool has loaded: calls made at once may otherwise all land on the first one ready. */
const threadsReady = (pool: InferencePool) => waitUntil(async () => pool.idleThreads, (idle) => idle === pool.threads, 60_000);

/** Whether this process may raise a thread's priority (CAP_SYS_NICE, or RLIMIT_NICE above its nice value). */
function mayRaisePriority(): boolean {
  const base = os.getPriority();
  if (base <= -20) return false;
  try {
    os.setPriority(base - 1);
    os.setPriority(base);
    return true;
  } catch {
    return false;
  }
}

describe('InferencePool', () => {
  const pool = new InferencePool(2);
  afterAll(() => pool.close());

  it('runs tasks on worker threads, not the main thread', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => pool.run('ping', n)));
    expect(results.map((r) => r.pong)).toEqual([1, 2, 3, 4]);
    for (const r of results) expect(r.threadId).toBeGreaterThan(0);
  });

  it('keeps a script alive while its first job waits for loading threads', () => {
    const script = fileURLToPath(new URL('../../test/support/pool-ping-script.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim()).pong).toBe(42);
  });

  it('rejects unknown tasks', async () => {
    // @ts-expect-error an unknown task name is refused at run time as well
    await expect(pool.run('no-such-task', null)).rejects.toThrow(/unknown inference task/);
  });

  it('terminates and replaces a thread whose task runs past its time limit; other tasks go on', async () => {
    const before = await pool.run('ping', 0);
    const stuck = pool.run('ping', { blockMs: 60_000 }, { timeoutMs: 300 });
    const other = pool.run('ping', 7);
    await expect(stuck).rejects.toBeInstanceOf(InferenceTimeoutError);
    await expect(stuck).rejects.toThrow(/within 300 ms/);
    expect((await other).pong).toBe(7);
    // The pool is whole again: both threads answer, one of them a fresh thread.
    const after = await Promise.all([1, 2, 3, 4].map((n) => pool.run('ping', n, { timeoutMs: 10_000 })));
    expect(new Set(after.map((r) => r.threadId)).size).toBeGreaterThanOrEqual(1);
    expect(after.every((r) => r.threadId > 0)).toBe(true);
    expect(before.threadId).toBeGreaterThan(0);
  });

  it('applies the pool default time limit', async () => {
    const limited = new InferencePool(1, { taskTimeoutMs: 200 });
    try {
      await expect(limited.run('ping', { blockMs: 30_000 })).rejects.toBeInstanceOf(InferenceTimeoutError);
      // The pool still answers. This call may land on the low-priority thread while the stuck one spins on
      // until its stop grace ends, so on a loaded machine it gets a limit of its own, not the 200 ms tested above.
      expect((await limited.run('ping', 3, { timeoutMs: 60_000 })).pong).toBe(3);
    } finally {
      await limited.close();
    }
  });
});

describe('InferencePool fairness and limits', () => {
  it("runs an account's single call on a first-tier thread while another account floods the low-priority tier", async () => {
    const pool = new InferencePool(2, { accountQueue: 100 });
    try {
      expect(pool.threads).toBe(4);
      await threadsReady(pool);
      await Promise.all(Array.from({ length: 4 }, () => pool.run('ping', 0))); // threads warm
      const flood = Array.from({ length: 12 }, () => pool.run('ping', spin(150), { accountId: 1 }));
      await new Promise((r) => setTimeout(r, 20));
      const probes = [];
      for (let i = 0; i < 3; i++) probes.push(await pool.run('ping', spin(5), { accountId: 2 }));
      const flooded = await Promise.all(flood);
      // The flood holds the low-priority threads (both of them: alone it still uses every core), the
      // other account's calls never queue behind it and run at the normal priority.
      expect(new Set(flooded.slice(1).map((r) => r.threadId)).size).toBe(2);
      expect(new Set(probes.map((r) => r.threadId)).size).toBeLessThanOrEqual(2);
      for (const probe of probes) expect(flooded.slice(1).map((r) => r.threadId)).not.toContain(probe.threadId);
      if (process.platform === 'linux') {
        // Ten steps below the process's own priority (whatever it was started with), at most 19.
        const low = Math.min(19, os.getPriority() + 10);
        for (const r of flooded.slice(1)) expect(r.nice).toBe(low);
        // Above the process's priority where it may raise threads (FIRST_TIER_BOOST), else at it.
        for (const r of probes) expect(r.nice).toBe(os.getPriority() + pool.tierNice().first!);
        // Background work runs on the low-priority tier too.
        expect((await pool.run('ping', 1, { priority: 'background' })).nice).toBe(low);
      }
    } finally {
      await pool.close();
    }
  });


  it.runIf(process.platform === 'linux')('raises the first tier above the process where allowed, and reports where each tier runs', async () => {
    const base = os.getPriority();
    const pools = { boosted: new InferencePool(1, { lowPriorityThreads: 1 }), unboosted: new InferencePool(1, { lowPriorityThreads: 1, firstTierBoost: 0 }), oneTier: new InferencePool(1, { lowPriorityThreads: 0 }) };
    try {
      // A single call goes to the first tier once its thread has loaded (before, to whichever thread is ready).
      await Promise.all(Object.values(pools).map(threadsReady));
      const single = async (pool: InferencePool) => (await pool.run('ping', 0, { accountId: 1 })).nice! - base;
      const background = async (pool: InferencePool) => (await pool.run('ping', 0, { priority: 'background' })).nice! - base;
      const boosted = await single(pools.boosted);
      // What the threads observe is what the pool reports (metrics, the start-up warning); read once each tier has
      // answered, as a thread reports its priority before its first answer.
      const low = await background(pools.boosted);
      expect(pools.boosted.tierNice()).toEqual({ first: boosted, low });
      expect(pools.boosted.tierNice().low).toBe(Math.min(19, base + LOW_PRIORITY_NICE) - base);
      if (mayRaisePriority()) expect(boosted).toBeLessThan(0);
      else expect(boosted).toBe(0);
      if (process.getuid?.() === 0 && mayRaisePriority()) expect(boosted).toBe(Math.max(-20, base - FIRST_TIER_BOOST) - base);
      expect(await single(pools.unboosted)).toBe(0);
      // One tier: every thread serves everyone, none is raised.
      expect(await single(pools.oneTier)).toBe(0);
      expect(pools.oneTier.tierNice()).toEqual({ first: 0, low: null });
    } finally {
      await Promise.all(Object.values(pools).map((p) => p.close()));
    }
  });

  it('keeps a thread for other accounts while one account floods, and serves accounts in turn', async () => {
    const pool = new InferencePool(2, { accountThreads: 1, accountQueue: 100, lowPriorityThreads: 0 });
    try {
      await threadsReady(pool);
      await Promise.all([pool.run('ping', 0), pool.run('ping', 0)]); // threads warm
      const flood = Array.from({ length: 12 }, () => pool.run('ping', spin(150), { accountId: 1 }));
      await new Promise((r) => setTimeout(r, 20));
      const started = performance.now();
      await pool.run('ping', spin(10), { accountId: 2 });
      const waited = performance.now() - started;
      // Account 1 holds one thread at most: account 2 never queues behind its 12 × 150 ms.
      expect(waited).toBeLessThan(1000);
      expect(pool.waiting.interactive).toBeGreaterThan(5);
      await Promise.all(flood);
    } finally {
      await pool.close();
    }
  });

  it("puts an account's task on the low-priority tier while the account has other calls in flight in the process", async () => {
    const pool = new InferencePool(1, { accountQueue: 100 });
    try {
      await threadsReady(pool);
      await Promise.all([pool.run('ping', 0), pool.run('ping', 0)]);
      const calls = new Map([['1', 3], ['2', 1]]);
      pool.callsInFlight = (account) => calls.get(account) ?? 0;
      // Alone in the pool, one at a time: only the account with a single call in flight gets the first tier.
      const flooding = await pool.run('ping', 1, { accountId: 1 });
      const single = await pool.run('ping', 2, { accountId: 2 });
      expect(flooding.threadId).not.toBe(single.threadId);
      if (process.platform === 'linux') expect([single.nice, flooding.nice]).toEqual([os.getPriority() + pool.tierNice().first!, Math.min(19, os.getPriority() + 10)]);
    } finally {
      await pool.close();
    }
  });

  it('lets a short task borrow an idle thread beyond its account share, and only a short one', async () => {
    const pool = new InferencePool(2, { accountThreads: 1, accountQueue: 100, lowPriorityThreads: 0 });
    try {
      await threadsReady(pool);
      await Promise.all([pool.run('ping', 0), pool.run('ping', 0)]); // threads warm
      const long = pool.run('ping', spin(600), { accountId: 1 });
      await new Promise((r) => setTimeout(r, 30));
      const started = performance.now();
      const borrowed = await pool.run('ping', spin(5), { accountId: 1, mayBorrow: true });
      const borrowedWaited = performance.now() - started;
      const longDone = await long;
      // The short task ran beside the long one, on the other thread, not after it.
      expect(borrowed.threadId).not.toBe(longDone.threadId);
      expect(borrowedWaited).toBeLessThan(500);

      expect(pool.idleThreads).toBe(2);
      const order: string[] = [];
      const holder = pool.run('ping', spin(400), { accountId: 1 }).then(() => order.push('long'));
      await new Promise((r) => setTimeout(r, 30));
      const capped = pool.run('ping', spin(5), { accountId: 1 }).then(() => order.push('capped'));
      // One thread runs the long task and a job waits for the account's share: none counts as idle.
      expect(pool.idleThreads).toBe(0);
      await Promise.all([holder, capped]);
      // Without mayBorrow the account keeps to its share: its second task waits for the first.
      expect(order).toEqual(['long', 'capped']);
    } finally {
      await pool.close();
    }
  });

  it('takes accounts round-robin, not in arrival order', async () => {
    const pool = new InferencePool(1, { accountThreads: 1, accountQueue: 100, lowPriorityThreads: 0 });
    try {
      const order: string[] = [];
      const track = (account: number, i: number) => pool.run('ping', spin(5), { accountId: account }).then(() => order.push(`${account}:${i}`));
      const all = [track(1, 0), track(1, 1), track(1, 2), track(1, 3), track(2, 0), track(2, 1)];
      await Promise.all(all);
      // After account 1's first job, the two accounts alternate while both have work.
      expect(order.slice(0, 5)).toEqual(['1:0', '2:0', '1:1', '2:1', '1:2']);
    } finally {
      await pool.close();
    }
  });

  it("refuses an account's calls past its queue with 503 (busy), others unaffected", async () => {
    const pool = new InferencePool(1, { accountThreads: 1, accountQueue: 3, lowPriorityThreads: 0 });
    try {
      await pool.run('ping', 0); // the thread is ready: the first job leaves the queue at once
      const accepted = Array.from({ length: 4 }, () => pool.run('ping', spin(50), { accountId: 1 }));
      const refused = pool.run('ping', 1, { accountId: 1 });
      await expect(refused).rejects.toBeInstanceOf(ApiError);
      await expect(refused).rejects.toMatchObject({ status: 503, code: 9006 });
      await expect(pool.run('ping', 2, { accountId: 2 })).resolves.toMatchObject({ pong: 2 });
      await Promise.all(accepted);
    } finally {
      await pool.close();
    }
  });

  it('stops a task over its time limit: the thread is replaced and the caller gets 504', async () => {
    const pool = new InferencePool(1, { interactiveTimeoutMs: 300 });
    try {
      await threadsReady(pool);
      // A new thread's first task includes its start-up: generous limits for those.
      const first = await pool.run('ping', 0, { timeoutMs: 20_000 });
      const slow = pool.run('ping', spin(60_000), { accountId: 1 });
      await expect(slow).rejects.toMatchObject({ status: 504, code: 9007 });
      expect(pool.timeouts).toBe(1);
      const after = await pool.run('ping', 0, { accountId: 1, timeoutMs: 20_000 });
      expect(after.threadId).not.toBe(first.threadId);
      // A per-call limit overrides the pool's.
      await expect(pool.run('ping', spin(400), { timeoutMs: 5000 })).resolves.toBeDefined();
    } finally {
      await pool.close();
    }
  });
});
