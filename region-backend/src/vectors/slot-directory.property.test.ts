import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotDirectory } from './slot-directory.js';

// Few distinct ids so that sequences revisit them; spread over the whole safe range so both 32-bit halves vary.
const idArb = fc.oneof(
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 0, max: 30 }).map((n) => n * 0x1_0000_0000),
  fc.integer({ min: 0, max: 20 }).map((n) => Number.MAX_SAFE_INTEGER - n),
  fc.integer({ min: -20, max: -1 }),
);
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('acquire' as const), id: idArb }),
  fc.record({ kind: fc.constant('release' as const), id: idArb }),
);

/** Checks the directory against the model: every id's slot, every slot's id, the counts. */
function expectSame(dir: SlotDirectory, model: Map<number, number>, ids: readonly number[]): void {
  expect(dir.size).toBe(model.size);
  for (const id of ids) expect(dir.slot(id)).toBe(model.get(id));
  for (const [id, slot] of model) expect(dir.idAt(slot)).toBe(id);
  const live: number[] = [];
  dir.forEachLive((slot, id) => {
    expect(model.get(id)).toBe(slot);
    live.push(slot);
  });
  expect(live.length).toBe(model.size);
}

describe('slot directory', () => {
  it('maps ids to slots as a Map would, through any run of acquires and releases, and after a snapshot', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 50, maxLength: 600 }), (ops) => {
        const dir = new SlotDirectory();
        const model = new Map<number, number>();
        const seen = new Set<number>();
        for (const op of ops) {
          seen.add(op.id);
          if (op.kind === 'acquire') {
            const placed = dir.acquire(op.id);
            const known = model.get(op.id);
            expect(placed.isNew).toBe(known === undefined);
            if (known !== undefined) expect(placed.slot).toBe(known);
            else expect([...model.values()]).not.toContain(placed.slot);
            model.set(op.id, placed.slot);
          } else {
            expect(dir.release(op.id)).toBe(model.get(op.id));
            model.delete(op.id);
          }
          expect(dir.slotCount).toBeGreaterThanOrEqual(model.size);
        }
        const probes = [...seen, 7_777_777, -7];
        expectSame(dir, model, probes);
        const restored = SlotDirectory.fromSnapshot(dir.snapshot());
        expectSame(restored, model, probes);
        expect(restored.freeCount).toBe(dir.slotCount - model.size);
      }),
      { numRuns: 300 },
    );
  });

  it('holds a million sequential ids and frees every other one', () => {
    const dir = new SlotDirectory();
    const n = 1_000_000;
    for (let id = 1; id <= n; id++) dir.acquire(id * 3);
    for (let id = 2; id <= n; id += 2) dir.release(id * 3);
    expect(dir.size).toBe(n / 2);
    let wrong = 0;
    for (let id = 1; id <= n; id++) if (dir.slot(id * 3) !== (id % 2 === 1 ? id - 1 : undefined)) wrong++;
    expect(wrong).toBe(0);
    // New ids take the freed slots before fresh ones.
    expect(dir.acquire(-1)).toEqual({ slot: n - 1, isNew: true, reused: true });
  });

  it('refuses a snapshot that holds one id twice', () => {
    expect(() => SlotDirectory.fromSnapshot(Float64Array.from([5, NaN, 5]))).toThrow(/stored twice/);
    expect(() => SlotDirectory.fromSnapshot(Float64Array.from([0.5]))).toThrow(/invalid id/);
  });
});
