import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@iris/shared';
import { BulkWriteTurns, MAX_HOLD_MS } from './bulk-write-turns.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('bulk write turns', () => {
  it('while an account yields: one file at a time, and a file of n rows holds the next back n / rowsPerSecond', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 2, maxLength: 3 }), fc.constantFrom(1000, 2000), async (files, rowsPerSecond) => {
        const turns = new BulkWriteTurns({ yields: () => true, rowsPerSecond, maxWaitMs: 10_000 });
        const spans: { start: number; end: number; rows: number }[] = [];
        let applying = 0;
        let most = 0;
        // Every file is sent at once (a parallel caller); they take turns.
        await Promise.all(
          files.map(async (rows) => {
            const release = await turns.enter('a');
            const start = performance.now();
            most = Math.max(most, ++applying);
            await sleep(2);
            applying--;
            const end = performance.now();
            release(rows);
            spans.push({ start, end, rows });
          }),
        );
        expect(most).toBe(1);
        spans.sort((x, y) => x.start - y.start);
        for (let i = 1; i < spans.length; i++) {
          const hold = Math.min(MAX_HOLD_MS, (spans[i - 1]!.rows / rowsPerSecond) * 1000);
          // Timers may fire a millisecond early against performance.now().
          expect(spans[i]!.start - spans[i - 1]!.end).toBeGreaterThanOrEqual(hold - 2);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('holds nobody while the account does not yield, and another account never waits for this one', async () => {
    let yields = false;
    const turns = new BulkWriteTurns({ yields: (account) => yields && account === 'a', rowsPerSecond: 10, maxWaitMs: 10_000 });
    const first = await turns.enter('a');
    const second = await turns.enter('a'); // both apply at once
    first(100);
    second(100);
    yields = true;
    const started = performance.now();
    const held = await turns.enter('a'); // written while not yielding: no hold (else 10 s, capped at 5)
    expect(performance.now() - started).toBeLessThan(1000);
    const other = await turns.enter('b'); // 'b' does not yield, whatever 'a' does
    other(1000);
    held(100);
    yields = false;
    (await turns.enter('a'))(0); // the hold of 'a' only applies while it yields
  });

  it('refuses with 503/9006 a file that waited past maxWaitMs for its turn', async () => {
    const turns = new BulkWriteTurns({ yields: () => true, rowsPerSecond: 0, maxWaitMs: 60 });
    const holder = await turns.enter('a');
    const refused = await turns.enter('a').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect([(refused as ApiError).status, (refused as ApiError).code]).toEqual([503, 9006]);
    holder(10);
    (await turns.enter('a'))(0); // rowsPerSecond 0: one at a time, no spacing
  });
});
