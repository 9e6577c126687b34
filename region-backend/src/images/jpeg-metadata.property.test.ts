import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photoJpeg } from '../../test/support/test-images.js';
import { withinSync } from '../../test/support/time-bound.js';
import { jpegFrameSize, stripJpegMetadata } from './jpeg-metadata.js';

/** A marker segment: FF, marker, big-endian length, payload. */
function segment(marker: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  out.set([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  out.set(payload, 4);
  return out;
}

/** The JPEG with `segments` inserted after its SOI, and `trailer` after its end. */
function withSegments(jpeg: Uint8Array, segments: Uint8Array[], trailer = new Uint8Array(0)): Uint8Array {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2), trailer]);
}

const text = (s: string) => new TextEncoder().encode(s);
const raw = (img: { data: Buffer }) => img.data;
const pixelsOf = async (bytes: Uint8Array) => raw(await sharp(bytes).raw().toBuffer({ resolveWithObject: true }));

describe('stripJpegMetadata', () => {
  it('drops EXIF, XMP, ICC, IPTC, comments and a trailer; keeps JFIF and Adobe; the pixels stay exactly the same', async () => {
    const photo = await sharp(await photoJpeg(96, 64, 3)).withExif({ IFD0: { Copyright: 'GPS-SECRET' } }).jpeg({ quality: 80 }).toBuffer();
    const original = withSegments(
      photo,
      [segment(0xe1, text('http://ns.adobe.com/xap/1.0/\0<x>GPS-SECRET</x>')), segment(0xed, text('Photoshop 3.0\0GPS-SECRET')), segment(0xfe, text('GPS-SECRET'))],
      text('GPS-SECRET trailing'),
    );
    const stripped = stripJpegMetadata(original)!;
    expect(stripped).not.toBeNull();
    expect(Buffer.from(stripped).includes('GPS-SECRET')).toBe(false);
    expect(Buffer.from(stripped).includes('JFIF')).toBe(Buffer.from(photo).includes('JFIF'));
    expect(Buffer.from(stripped).subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    const meta = await sharp(stripped).metadata();
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined]);
    expect((await pixelsOf(stripped)).equals(await pixelsOf(original))).toBe(true);
    // A progressive JPEG (several scans, tables between them) too.
    const progressive = await sharp(await photoJpeg(96, 64, 4)).jpeg({ quality: 80, progressive: true }).toBuffer();
    const adobe = segment(0xee, text('Adobe\0\x64\0\0\0\0\x01'));
    const again = stripJpegMetadata(withSegments(progressive, [adobe, segment(0xfe, text('note'))]))!;
    expect(Buffer.from(again).includes(Buffer.from(adobe))).toBe(true);
    expect((await pixelsOf(again)).equals(await pixelsOf(progressive))).toBe(true);
  });

  it('answers null for what is not a whole JPEG', async () => {
    const photo = await photoJpeg(32, 32, 5);
    expect(stripJpegMetadata(photo.subarray(0, photo.length - 2))).toBeNull(); // no end marker
    expect(stripJpegMetadata(photo.subarray(0, 300))).toBeNull(); // truncated
    expect(stripJpegMetadata(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]))).toBeNull(); // no scan
    expect(stripJpegMetadata(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(stripJpegMetadata(withSegments(photo, [new Uint8Array([0xff, 0xe1, 0x00, 0x01])]))).toBeNull(); // length below 2
    expect(stripJpegMetadata(withSegments(photo, [new Uint8Array([0xff, 0xe1, 0xff, 0xff, 1, 2])]))).toBeNull(); // past the end
  });

  it('hostile bytes: answers null or a JPEG no longer than the input that ends at its end marker, quickly', async () => {
    const photo = await photoJpeg(48, 32, 6);
    const mutated = fc
      .tuple(fc.array(fc.tuple(fc.nat(photo.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), fc.nat(photo.length))
      .map(([edits, cut]) => {
        const bytes = Uint8Array.from(photo.subarray(0, Math.max(2, cut)));
        for (const [at, value] of edits) if (at < bytes.length) bytes[at] = value;
        return bytes;
      });
    const anyBytes = fc.uint8Array({ maxLength: 4096 }).map((b) => Uint8Array.from([0xff, 0xd8, ...b]));
    fc.assert(
      fc.property(fc.oneof(mutated, anyBytes), (bytes) => {
        const out = withinSync(() => stripJpegMetadata(bytes), undefined, "stripJpegMetadata");
        if (out === null) return;
        expect(out.length).toBeLessThanOrEqual(bytes.length);
        expect([out[0], out[1], out[out.length - 2], out[out.length - 1]]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('jpegFrameSize', () => {
  it('reads the size a JPEG decodes to, through metadata segments, progressive frames and fill bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 700 }), fc.integer({ min: 1, max: 700 }), fc.boolean(), fc.nat({ max: 3 }), async (width, height, progressive, comments) => {
        const jpeg = await sharp({ create: { width, height, channels: 3, background: '#808080' } }).jpeg({ progressive }).toBuffer();
        const bytes = withSegments(jpeg, [...Array.from({ length: comments }, () => segment(0xfe, text('note'))), new Uint8Array([0xff, 0xff])]);
        const meta = await sharp(bytes).metadata();
        expect(jpegFrameSize(bytes)).toEqual({ width: meta.width, height: meta.height });
      }),
      { numRuns: 40 },
    );
  });

  it('answers null or a positive size for any bytes, reading each at most once', () => {
    const jpegStart = fc.uint8Array({ maxLength: 2000 }).map((tail) => Buffer.concat([Buffer.from([0xff, 0xd8]), tail]));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), jpegStart), (bytes) => {
        const size = withinSync(() => jpegFrameSize(bytes), 50, 'jpegFrameSize');
        if (size) expect(size.width > 0 && size.height > 0 && size.width < 65536 && size.height < 65536).toBe(true);
      }),
      { numRuns: 500 },
    );
    // Hostile: a megabyte of fill bytes, of zero-length segments, of one huge segment's length pointing past the end.
    for (const hostile of [Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(1_000_000, 0xff)]), Buffer.concat([Buffer.from([0xff, 0xd8]), ...Array.from({ length: 250_000 }, () => Buffer.from([0xff, 0xfe, 0, 2]))]), Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0xff, 0xff])]) {
      expect(withinSync(() => jpegFrameSize(hostile), 200, 'jpegFrameSize')).toBeNull();
    }
  });
});
