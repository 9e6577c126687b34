import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { median } from '../../../scripts/table.js';
import { InsertPacer } from './insert-pacer.js';

/** A pacer on a fake clock where inserting one item costs `costOf(itemsSoFar)` ms. */
function pacedRun(costOf: (done: number) => number, total: number) {
  let clock = 0;
  let done = 0;
  const chunks: number[] = [];
  /** ms of synchronous work between two turns of the event loop. */
  const stretches: number[] = [0];
  const pacer = new InsertPacer({
    sliceMs: 10,
    maxChunk: 256,
    now: () => clock,
    yieldTurn: async () => {
      stretches.push(0);
    },
  });
  const items = Array.from({ length: total }, (_, i) => i);
  const run = pacer.run(items, (chunk) => {
    chunks.push(chunk.length);
    for (const item of chunk) {
      expect(item).toBe(done);
      const cost = costOf(done++);
      clock += cost;
      stretches[stretches.length - 1]! += cost;
    }
  });
  return { run, chunks, stretches, inserted: () => done };
}

describe('insert pacer', () => {
  it('sizes its chunks to the slice as inserts grow dearer, and gives the event loop a turn after each', async () => {
    // An insert whose cost grows with the log of the graph's size, as an HNSW insert does: 0.2 ms to 2.9 ms.
    const { run, chunks, stretches, inserted } = pacedRun((i) => 0.2 * Math.log2(2 + i), 20_000);
    await run;
    expect(inserted()).toBe(20_000);
    expect(chunks[0]).toBe(16);
    expect(chunks.slice(-10, -1)).toEqual(Array(9).fill(3));
    expect(stretches.length).toBe(chunks.length + 1);
    // No chunk passes the slice by more than the cost's growth over two chunks (most at the start, where the
    // log grows fastest); a fixed chunk of 256 would block for up to 750 ms.
    expect(Math.max(...stretches)).toBeLessThan(15);
    expect(median(stretches.slice(1, -1))).toBeGreaterThan(8);
  });

  it('takes cheap items in chunks of at most the largest size', async () => {
    const { run, chunks } = pacedRun(() => 0.001, 3000);
    await run;
    expect(chunks.slice(0, 2)).toEqual([16, 256]);
    expect(Math.max(...chunks)).toBe(256);
  });

  it('inserts every item once, in order, whatever the costs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { maxLength: 400 }), async (costs) => {
        const { run, chunks, inserted } = pacedRun((i) => costs[i]!, costs.length);
        await run;
        expect(inserted()).toBe(costs.length);
        expect(chunks.reduce((a, b) => a + b, 0)).toBe(costs.length);
        for (const n of chunks) expect(n).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });
});
