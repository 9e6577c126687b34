/**
 * Group commit: every item is written exactly once, in arrival order per key, in groups no larger than the
 * bound; each caller learns its own item's outcome; items arriving while a write runs share the next one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes each item once, in order, in bounded groups, and answers each caller with its own outcome', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), fails: fc.boolean() }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        async (items, maxGroup) => {
          const written = new Map<string, number[]>();
          const groups: number[] = [];
          const commit = new GroupCommit<string, { n: number; fails: boolean }>(async (key, group) => {
            await Promise.resolve();
            groups.push(group.length);
            written.set(key, [...(written.get(key) ?? []), ...group.map((g) => g.n)]);
            return group.map((g) => (g.fails ? new Error(`item ${g.n}`) : null));
          }, maxGroup);
          const outcomes = await Promise.allSettled(items.map((item, n) => commit.submit(item.key, { n, fails: item.fails })));
          outcomes.forEach((o, n) => {
            if (items[n]!.fails) expect(o).toEqual({ status: 'rejected', reason: new Error(`item ${n}`) });
            else expect(o.status).toBe('fulfilled');
          });
          for (const key of ['a', 'b', 'c']) expect(written.get(key) ?? []).toEqual(items.flatMap((item, n) => (item.key === key ? [n] : [])));
          expect(Math.max(...groups)).toBeLessThanOrEqual(maxGroup);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('groups the items that arrive while a write runs, and fails a whole group when the write throws', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const groups: number[][] = [];
    const commit = new GroupCommit<string, number>(async (_key, group) => {
      groups.push(group);
      if (groups.length === 1) await gate;
      if (group.includes(99)) throw new Error('database gone');
      return group.map(() => null);
    });
    const first = commit.submit('s', 0);
    const waiting = [1, 2, 3].map((n) => commit.submit('s', n));
    release();
    await Promise.all([first, ...waiting]);
    expect(groups).toEqual([[0], [1, 2, 3]]);
    await expect(commit.submit('s', 99)).rejects.toThrow('database gone');
    await commit.submit('s', 5);
    expect(groups.at(-1)).toEqual([5]);
  });
});
