import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withinSync } from '../../test/support/time-bound.js';
import { channelReader, decodeBmp, readBmpHeader } from './bmp-decoder.js';
import { ImageDecodeError } from './image-errors.js';

/** A BMP with a 40-byte info header, three or four bit-field masks and random pixel bytes. */
function bmpFile(o: { width: number; height: number; bpp: number; compression: number; masks: number[]; colorsUsed: number; dataOffset: number | null; pixels: Uint8Array }): Uint8Array {
  const headerEnd = 54 + o.masks.length * 4;
  const offset = o.dataOffset ?? headerEnd;
  const out = new Uint8Array(Math.max(headerEnd, offset) + o.pixels.length);
  const view = new DataView(out.buffer);
  out[0] = 0x42;
  out[1] = 0x4d;
  view.setUint32(2, out.length, true);
  view.setUint32(10, offset, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, o.width, true);
  view.setInt32(22, o.height, true);
  view.setUint16(26, 1, true);
  view.setUint16(28, o.bpp, true);
  view.setUint32(30, o.compression, true);
  view.setUint32(46, o.colorsUsed, true);
  o.masks.forEach((m, i) => view.setUint32(54 + i * 4, m >>> 0, true));
  out.set(o.pixels, Math.max(headerEnd, offset));
  return out;
}

const anyBmp = fc.record({
  width: fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(0x7fffffff, -0x80000000, 65_536)),
  height: fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constantFrom(0x7fffffff, -0x80000000)),
  bpp: fc.constantFrom(0, 1, 2, 4, 8, 15, 16, 24, 32, 64),
  compression: fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 0xffffffff),
  masks: fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0xffffffff, 0x80000001, 0xff, 0xff000000, 0)), { minLength: 3, maxLength: 4 }),
  colorsUsed: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffffffff })),
  dataOffset: fc.option(fc.integer({ min: 0, max: 200 })),
  pixels: fc.uint8Array({ maxLength: 4096 }),
});

describe('BMP decoder on hostile headers', () => {
  it('decodes a 1×1 32-bit bit-field BMP with mask 0xFFFFFFFF at once instead of spinning', () => {
    const file = bmpFile({ width: 1, height: 1, bpp: 32, compression: 3, masks: [0xffffffff, 0xff00, 0xff], colorsUsed: 0, dataOffset: null, pixels: new Uint8Array([0, 0, 0, 0xc0]) });
    const out = withinSync(() => decodeBmp(file), 200, 'decodeBmp');
    expect([out.width, out.height, out.data[0]]).toEqual([1, 1, 0xc0]);
  });

  it('refuses a mask with a gap', () => {
    const file = bmpFile({ width: 1, height: 1, bpp: 32, compression: 3, masks: [0x80000001, 0xff00, 0xff], colorsUsed: 0, dataOffset: null, pixels: new Uint8Array(4) });
    expect(() => withinSync(() => decodeBmp(file), 200, 'decodeBmp')).toThrow(/contiguous/);
  });

  it('reads contiguous masks of every width and refuses the others', () => {
    expect(channelReader(0xff000000)(0xab000000)).toBe(0xab);
    expect(channelReader(0x3ff00000)(0x3ff00000)).toBe(255);
    expect(channelReader(0x001f)(0x001f)).toBe(255);
    expect(channelReader(0)(123)).toBe(255);
    for (const mask of [0xffffffff, 0xfffffff0]) expect(() => channelReader(mask)).not.toThrow();
    for (const mask of [0b101, 0x80000001, 0xff00ff]) expect(() => channelReader(mask)).toThrow(/contiguous/);
  });

  it('decodes or refuses any header with an ImageDecodeError, in bounded time and memory', () => {
    fc.assert(
      fc.property(anyBmp, (o) => {
        const file = bmpFile(o);
        withinSync(() => {
          try {
            const header = readBmpHeader(file);
            const out = decodeBmp(file, header);
            expect(out.data.length).toBe(out.width * out.height * out.channels);
            expect(out.width * out.height).toBeLessThanOrEqual(file.length * 8);
          } catch (err) {
            if (!(err instanceof ImageDecodeError)) throw err;
          }
        }, 1_000, 'decodeBmp');
      }),
      { numRuns: 400 },
    );
  });

  it('never throws anything but ImageDecodeError on arbitrary bytes after a BM signature', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), (tail) => {
        const file = new Uint8Array([0x42, 0x4d, ...tail]);
        withinSync(() => {
          try {
            decodeBmp(file);
          } catch (err) {
            if (!(err instanceof ImageDecodeError)) throw err;
          }
        }, 1_000, 'decodeBmp');
      }),
      { numRuns: 400 },
    );
  });
});
