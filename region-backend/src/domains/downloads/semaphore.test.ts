import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { YieldGate } from './semaphore.js';

/** Runs `holders` holders of `key` through the gate, each holding for `holdMs`; answers the most at once. */
async function mostAtOnce(gate: YieldGate, key: string, holders: number, holdMs: number, stopped?: () => boolean): Promise<number> {
  let now = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: holders }, async () => {
      const release = await gate.enter(key, stopped);
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, holdMs));
      now--;
      release();
    }),
  );
  return most;
}

describe('yield gate', () => {
  it('lets holders run together while nothing is busy, one at a time per key while something is', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 6 }), fc.boolean(), async (holders, busy) => {
        const gate = new YieldGate(() => busy);
        expect(await mostAtOnce(gate, 'a', holders, 5)).toBe(busy ? 1 : holders);
      }),
      { numRuns: 12 },
    );
  });

  it('keys yield apart, and a stopped holder stops waiting', async () => {
    const gate = new YieldGate((key) => key !== 'free');
    const [a, b, free] = await Promise.all([mostAtOnce(gate, 'a', 3, 5), mostAtOnce(gate, 'b', 3, 5), mostAtOnce(gate, 'free', 3, 5)]);
    expect([a, b, free]).toEqual([1, 1, 3]);
    expect(await mostAtOnce(new YieldGate(() => true), 'a', 3, 30, () => true)).toBe(3);
  });

  it('a holder released twice counts once', async () => {
    const gate = new YieldGate(() => true);
    const first = await gate.enter('a');
    first();
    first();
    const second = await gate.enter('a');
    let third = false;
    const waiting = gate.enter('a').then((release) => ((third = true), release));
    await new Promise((r) => setTimeout(r, 60));
    expect(third).toBe(false);
    second();
    (await waiting)();
    expect(third).toBe(true);
  });

  it('paced while busy: holders of a key start at most startsPerSecond times a second; unpaced while nothing is busy', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 4 }), fc.constantFrom(10, 25), fc.boolean(), async (holders, perSecond, busy) => {
        const gate = new YieldGate(() => busy, perSecond);
        const starts: number[] = [];
        await Promise.all(
          Array.from({ length: holders }, async () => {
            const release = await gate.enter('a');
            starts.push(performance.now());
            await new Promise((r) => setTimeout(r, 2));
            release();
          }),
        );
        const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
        if (busy) for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1000 / perSecond - 1);
        else expect(Math.max(...gaps)).toBeLessThan(1000 / perSecond / 2);
      }),
      { numRuns: 8 },
    );
  });
});
