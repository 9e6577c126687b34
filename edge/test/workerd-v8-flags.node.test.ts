/**
 * `withV8Flags` (scripts/workerd-v8-flags.ts) against messages shaped as Miniflare encodes workerd's `Config`:
 * the flags read back through the far pointer as a list of texts, and every byte of the original segments but
 * the `v8Flags` pointer is kept. That workerd applies them is shown by edge-memory.node.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withV8Flags } from '../../scripts/workerd-v8-flags.js';

const WORD = 8;

/** A one-segment message whose root is a struct with `dataWords` data words and `pointers` null pointers. */
function message(dataWords: number, pointers: number, filler: number): Buffer {
  const segment = Buffer.alloc((1 + dataWords + pointers) * WORD, 0);
  segment.writeUInt32LE(0, 0); // struct pointer, offset 0
  segment.writeUInt32LE(dataWords | (pointers << 16), 4);
  segment.fill(filler, WORD, (1 + dataWords) * WORD);
  const header = Buffer.alloc(WORD);
  header.writeUInt32LE(0, 0);
  header.writeUInt32LE(segment.length / WORD, 4);
  return Buffer.concat([header, segment]);
}

function segments(encoded: Buffer): Buffer[] {
  const count = encoded.readUInt32LE(0) + 1;
  let offset = Math.ceil((4 * (count + 1)) / WORD) * WORD;
  return Array.from({ length: count }, (_, i) => {
    const bytes = encoded.readUInt32LE(4 * (i + 1)) * WORD;
    offset += bytes;
    return encoded.subarray(offset - bytes, offset);
  });
}

/** Follows pointer 2 of the root struct (a far pointer to a landing pad holding a list of text pointers). */
function readFlags(encoded: Buffer): string[] {
  const segs = segments(encoded);
  const root = segs[0]!;
  const high = root.readUInt32LE(4);
  const slot = 1 + (root.readUInt32LE(0) >> 2) + (high & 0xffff) + 2;
  const far = root.readUInt32LE(slot * WORD);
  expect(far & 7).toBe(2);
  const target = segs[root.readUInt32LE(slot * WORD + 4)]!;
  const pad = far >>> 3;
  const listLow = target.readUInt32LE(pad * WORD);
  const listHigh = target.readUInt32LE(pad * WORD + 4);
  expect([listLow & 3, listHigh & 7]).toEqual([1, 6]);
  const first = pad + 1 + (listLow >> 2);
  return Array.from({ length: listHigh >>> 3 }, (_, i) => {
    const at = first + i;
    const low = target.readUInt32LE(at * WORD);
    const hi = target.readUInt32LE(at * WORD + 4);
    expect([low & 3, hi & 7]).toEqual([1, 2]);
    const start = (at + 1 + (low >> 2)) * WORD;
    const text = target.subarray(start, start + (hi >>> 3));
    expect(text[text.length - 1]).toBe(0);
    return text.subarray(0, -1).toString('utf8');
  });
}

describe('withV8Flags', () => {
  it('adds the flags as a new segment and keeps the original bytes but the v8Flags pointer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 3, max: 8 }), fc.array(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\0')), { minLength: 1, maxLength: 6 }), (dataWords, pointers, flags) => {
        const original = message(dataWords, pointers, 0xab);
        const encoded = withV8Flags(original, flags);
        expect(readFlags(encoded)).toEqual(flags);
        const before = segments(original)[0]!;
        const after = segments(encoded)[0]!;
        const slot = (1 + dataWords + 2) * WORD;
        expect(Buffer.compare(after.subarray(0, slot), before.subarray(0, slot))).toBe(0);
        expect(Buffer.compare(after.subarray(slot + WORD), before.subarray(slot + WORD))).toBe(0);
      }),
    );
  });

  it('leaves a message alone without flags, and refuses what it cannot place', () => {
    const original = message(1, 6, 1);
    expect(withV8Flags(original, [])).toBe(original);
    expect(() => withV8Flags(message(1, 2, 1), ['--x'])).toThrow(/no v8Flags pointer/);
    const once = withV8Flags(original, ['--x']);
    expect(() => withV8Flags(once, ['--y'])).toThrow(/already set/);
    expect(() => withV8Flags(Buffer.concat([original, Buffer.alloc(WORD)]), ['--x'])).toThrow(/after the last segment/);
  });
});
