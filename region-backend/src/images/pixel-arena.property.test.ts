import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PixelArena } from './pixel-arena.js';
import { RecentPixels } from './recent-pixels.js';

const BLOCK = 16 * 1024;
const picture = (bytes: number, seed: number) => {
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (seed * 31 + i * 7) & 255;
  return { data, width: bytes / 3, height: 1 };
};

describe('PixelArena', () => {
  it('keeps every held slot apart and intact through any order of keeps and releases, and merges what is released', () => {
    const step = fc.oneof(
      fc.record({ keep: fc.integer({ min: 1, max: 2 * BLOCK }).map((n) => n * 3) }),
      fc.record({ release: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.array(step, { maxLength: 60 }), (blocks, steps) => {
        const arena = new PixelArena(blocks * BLOCK);
        const held: { pixels: ReturnType<typeof picture>; seed: number }[] = [];
        steps.forEach((s, seed) => {
          if ('keep' in s) {
            const original = picture(s.keep, seed);
            // The first gap between held slots (in blocks) that the picture fits in, lowest address first.
            const need = Math.ceil(s.keep / BLOCK);
            const taken = held.map((h) => [h.pixels.data.byteOffset / BLOCK, h.pixels.data.byteOffset / BLOCK + Math.ceil(h.pixels.data.byteLength / BLOCK)] as const).sort((a, b) => a[0] - b[0]);
            const gapStarts = [0, ...taken.map(([, end]) => end)];
            const gapEnds = [...taken.map(([start]) => start), blocks];
            const fit = gapStarts.findIndex((start, i) => gapEnds[i]! - start >= need);
            const kept = arena.keep(original);
            if (fit < 0) {
              expect(kept).toBeUndefined();
              return;
            }
            expect(kept!.data.buffer).toBeInstanceOf(SharedArrayBuffer);
            expect(kept!.data.byteOffset).toBe(gapStarts[fit]! * BLOCK);
            expect(arena.holds(kept!)).toBe(true);
            held.push({ pixels: kept as ReturnType<typeof picture>, seed });
          } else if (held.length) {
            const [gone] = held.splice(s.release % held.length, 1);
            arena.release(gone!.pixels);
            expect(arena.holds(gone!.pixels)).toBe(false);
          }
          // No two held slots overlap, each still holds what was kept, and the count is theirs.
          const spans = held.map((h) => [h.pixels.data.byteOffset, h.pixels.data.byteOffset + Math.ceil(h.pixels.data.byteLength / BLOCK) * BLOCK] as const).sort((a, b) => a[0] - b[0]);
          for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
          for (const h of held) expect(Buffer.from(h.pixels.data).equals(Buffer.from(picture(h.pixels.data.byteLength, h.seed).data))).toBe(true);
          expect(arena.held).toBe(held.length);
          expect(arena.heldBytes).toBe(spans.reduce((sum, [a, b]) => sum + b - a, 0));
        });
        for (const h of held) arena.release(h.pixels);
        // Everything released merges back into one run: the whole arena fits again.
        expect(arena.heldBytes).toBe(0);
        expect(arena.keep(picture(blocks * BLOCK - (blocks * BLOCK) % 3, 1))).toBeDefined();
      }),
      { numRuns: 200 },
    );
  });

  it('holds nothing with no capacity or more than can be reserved, and leaves alone pixels that are not its own', () => {
    const none = new PixelArena(0);
    expect(none.keep(picture(3, 1))).toBeUndefined();
    // Beyond what a SharedArrayBuffer can be: refused, not thrown (the downloads go on without keeping pixels).
    const huge = new PixelArena(2 ** 60);
    expect(huge.allocate(3)).toBeUndefined();
    expect(huge.keep(picture(3, 1))).toBeUndefined();
    expect(huge.held).toBe(0);
    const arena = new PixelArena(4 * BLOCK);
    const plain = picture(30, 2);
    arena.release(plain);
    expect(arena.holds(plain)).toBe(false);
    const kept = arena.keep(plain)!;
    // A view of the same memory from elsewhere (another thread's copy of the reference) is not a held slot.
    const other = new PixelArena(4 * BLOCK).keep(plain)!;
    expect(arena.holds(other)).toBe(false);
    arena.release(kept);
    arena.release(kept);
    expect(arena.held).toBe(0);
  });
});

describe('RecentPixels over an arena', () => {
  it('copies what it keeps into the arena, adopts slots of it, and releases what it refuses, drops or lets expire', () => {
    let now = 0;
    const arena = new PixelArena(8 * BLOCK);
    const first = new RecentPixels(3 * BLOCK, 1000, () => now, 1000, arena);
    const second = new RecentPixels(3 * BLOCK, 1000, () => now, 1000, arena);
    const a = picture(BLOCK - 1, 1);
    expect(first.put('a', a)).toBe(true);
    expect(arena.held).toBe(1);
    const taken = first.take('a')!;
    expect(taken.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(taken.data).equals(Buffer.from(a.data))).toBe(true);
    // Taken: the taker holds the slot; another table of the arena adopts it without a copy.
    expect(arena.held).toBe(1);
    expect(second.put('a', taken)).toBe(true);
    expect(arena.held).toBe(1);
    expect(second.take('a')!.data.byteOffset).toBe(taken.data.byteOffset);
    second.release(taken);
    expect(arena.held).toBe(0);
    // Refused (the key is there already): a slot handed in is released, a plain copy is not made.
    expect(first.put('b', picture(300, 2))).toBe(true);
    const slot = arena.keep(picture(300, 3))!;
    expect(first.put('b', slot)).toBe(false);
    expect(arena.holds(slot)).toBe(false);
    expect(arena.held).toBe(1);
    // Expired entries give their slots back, whether dropped or taken too late.
    expect(first.put('c', picture(300, 4))).toBe(true);
    now = 1500;
    expect(first.take('c')).toBeUndefined();
    first.dropExpired();
    expect(arena.held).toBe(0);
    // An arena with no slot left refuses even though the table has room.
    const small = new RecentPixels(10 * BLOCK, 1000, () => now, 1000, new PixelArena(BLOCK));
    expect(small.put('d', picture(BLOCK, 5))).toBe(true);
    expect(small.put('e', picture(3, 6))).toBe(false);
    expect(small.size).toBe(BLOCK);
  });
});
