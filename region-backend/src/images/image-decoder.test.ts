import type { RgbImage } from './rgb-image.js';
import sharp from 'sharp';
import { MessageChannel } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage, DEFAULT_STORAGE_QUALITY, ImageDecodeError, normaliseForStorage, parseLoc, probeImage } from './image-decoder.js';
import { sniffImageFormat } from './image-format.js';
import {
  alphaPng,
  animated,
  bmp,
  HTML_PAGE,
  hugeCanvasPng,
  orientedJpeg,
  photoJpeg,
  photoPixels,
  quadrantPixels,
  rawInput,
  SVG_IMAGE,
} from '../../test/support/test-images.js';

const pixel = (img: RgbImage, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 3, (y * img.width + x) * 3 + 3)];
const near = (actual: number[], expected: number[], tolerance = 12) => actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);

async function decodeError(promise: Promise<unknown>): Promise<ImageDecodeError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageDecodeError);
  return err as ImageDecodeError;
}

const quads = quadrantPixels(80, 60);
const files: Record<string, Buffer> = {};

beforeAll(async () => {
  const q = sharp(quads.data, rawInput(quads));
  files.jpeg = await q.clone().jpeg({ quality: 95 }).toBuffer();
  files.png = await q.clone().png().toBuffer();
  files.webp = await q.clone().webp({ lossless: true }).toBuffer();
  files.gif = await q.clone().gif().toBuffer();
  files.tiff = await q.clone().tiff().toBuffer();
  files.avif = await q.clone().avif({ lossless: true, effort: 0 }).toBuffer();
  files.bmp = bmp(quads, '24');
});

describe('probeImage and format sniffing', () => {
  it.each(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'bmp'])('recognises %s and reads its size without decoding', async (format) => {
    const bytes = files[format]!;
    expect(sniffImageFormat(bytes)).toBe(format);
    await expect(probeImage(bytes)).resolves.toMatchObject({ format, width: 80, height: 60 });
  });

  it('reports the displayed size of an EXIF-rotated JPEG and one frame of an animation', async () => {
    expect(await probeImage(await orientedJpeg())).toMatchObject({ width: 40, height: 120 });
    expect(await probeImage(await animated('gif'))).toMatchObject({ format: 'gif', width: 48, height: 32, pages: 3 });
  });

  it('refuses HTML and SVG without handing them to libvips', async () => {
    expect(sniffImageFormat(HTML_PAGE)).toBeNull();
    expect(sniffImageFormat(SVG_IMAGE)).toBeNull();
    const svg = await decodeError(decodeImage(SVG_IMAGE));
    expect([svg.kind, svg.message]).toEqual(['undecodable', 'SVG is not a supported image format']);
    expect((await decodeError(probeImage(HTML_PAGE))).kind).toBe('undecodable');
  });
});

describe('decodeImage', () => {
  it.each(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'bmp'])('decodes %s to packed RGB with the right colours', async (format) => {
    const img = await decodeImage(files[format]!);
    expect([img.width, img.height, img.data.length]).toEqual([80, 60, 80 * 60 * 3]);
    expect(near(pixel(img, 10, 10), [255, 0, 0], 30)).toBe(true);
    expect(near(pixel(img, 70, 10), [0, 255, 0], 30)).toBe(true);
    expect(near(pixel(img, 10, 50), [0, 0, 255], 30)).toBe(true);
    expect(near(pixel(img, 70, 50), [255, 255, 0], 30)).toBe(true);
  });

  it('applies EXIF orientation: the stored left half (red) ends up on top', async () => {
    const img = await decodeImage(await orientedJpeg());
    expect([img.width, img.height]).toEqual([40, 120]);
    expect(near(pixel(img, 20, 10), [255, 0, 0], 20)).toBe(true);
    expect(near(pixel(img, 20, 110), [0, 0, 255], 20)).toBe(true);
  });

  it('flattens transparency onto white', async () => {
    const img = await decodeImage(await alphaPng());
    expect(pixel(img, 5, 5)).toEqual([255, 255, 255]);
    expect(pixel(img, 60, 5)).toEqual([0, 0, 255]);
  });

  it.each(['gif', 'webp'] as const)('keeps only the first frame of an animated %s', async (format) => {
    const img = await decodeImage(await animated(format));
    expect([img.width, img.height]).toEqual([48, 32]);
    expect(near(pixel(img, 24, 16), [255, 0, 0], 10)).toBe(true);
    expect(near(pixel(img, 24, 31), [255, 0, 0], 10)).toBe(true);
  });

  it('crops to a loc region (top-right quadrant) and scales to maxSide', async () => {
    const crop = await decodeImage(files.png!, { crop: parseLoc('0.5-0-0.5-0.5') });
    expect([crop.width, crop.height]).toEqual([40, 30]);
    expect(near(pixel(crop, 0, 0), [0, 255, 0], 0) && near(pixel(crop, 39, 29), [0, 255, 0], 0)).toBe(true);
    const small = await decodeImage(files.png!, { maxSide: 20 });
    expect([small.width, small.height]).toEqual([20, 15]);
    const notEnlarged = await decodeImage(files.png!, { maxSide: 1000 });
    expect([notEnlarged.width, notEnlarged.height]).toEqual([80, 60]);
  });

  it('crops in displayed orientation', async () => {
    const bottom = await decodeImage(await orientedJpeg(), { crop: [0, 0.75, 1, 0.25] });
    expect([bottom.width, bottom.height]).toEqual([40, 30]);
    expect(near(pixel(bottom, 20, 15), [0, 0, 255], 20)).toBe(true);
  });

  it('refuses a region smaller than minSide as too-small', async () => {
    const err = await decodeError(decodeImage(files.png!, { crop: [0, 0, 0.05, 0.05], minSide: 8 }));
    expect(err.kind).toBe('too-small');
    expect((await decodeError(decodeImage(files.png!, { minSide: 100 }))).kind).toBe('too-small');
  });

  it('refuses a 30000×30000 canvas by its header, without allocating it', async () => {
    const bytes = hugeCanvasPng();
    expect(bytes.length).toBeLessThan(2048);
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const err = await decodeError(decodeImage(bytes));
    expect(err.kind).toBe('too-many-pixels');
    expect(err.message).toContain('30000×30000');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    expect((await decodeError(normaliseForStorage(bytes))).kind).toBe('too-many-pixels');
  });

  it('applies a lower pixel limit when asked', async () => {
    expect((await decodeError(decodeImage(files.jpeg!, { maxPixels: 1000 }))).kind).toBe('too-many-pixels');
  });

  it('refuses truncated and corrupt data as undecodable', async () => {
    const photo = await photoJpeg(400, 300);
    const truncated = await decodeError(decodeImage(photo.subarray(0, Math.floor(photo.length / 2))));
    expect([truncated.kind, truncated.message]).toEqual(['undecodable', 'the image data is corrupt or truncated']);
    const corrupt = Buffer.from(files.png!);
    corrupt.fill(0x55, 60, 200);
    expect((await decodeError(decodeImage(corrupt))).kind).toBe('undecodable');
    expect((await decodeError(decodeImage(files.bmp!.subarray(0, 500)))).kind).toBe('undecodable');
  });

  it('accepts harmless trailing bytes after a JPEG', async () => {
    const img = await decodeImage(Buffer.concat([files.jpeg!, Buffer.from('trailer')]));
    expect(img.width).toBe(80);
  });
});

describe('BMP variants', () => {
  it('reads 32-bit top-down with alpha (flattened) and 8-bit palette files', async () => {
    const photo = photoPixels(33, 17);
    const withAlpha = await decodeImage(bmp(photo, '32-alpha', (x) => (x < 10 ? 0 : 255)));
    expect([withAlpha.width, withAlpha.height]).toEqual([33, 17]);
    expect(pixel(withAlpha, 2, 2)).toEqual([255, 255, 255]);
    expect(near(pixel(withAlpha, 20, 3), [...photo.data.subarray((3 * 33 + 20) * 3, (3 * 33 + 20) * 3 + 3)], 1)).toBe(true);
    const palette = await decodeImage(bmp(quads, '8-palette'));
    expect(near(pixel(palette, 10, 10), [255, 0, 0], 0) && near(pixel(palette, 70, 50), [255, 255, 0], 0)).toBe(true);
  });
});

describe('normaliseForStorage', () => {
  it('stores an upright sRGB JPEG without metadata, capped at the longest side', async () => {
    const big = photoPixels(2000, 1000);
    const png = await sharp(big.data, rawInput(big)).png({ compressionLevel: 1 }).toBuffer();
    const stored = await normaliseForStorage(png);
    expect([stored.format, stored.width, stored.height]).toEqual(['jpeg', 1024, 512]);
    expect(sniffImageFormat(stored.bytes)).toBe('jpeg');
    const rotated = await normaliseForStorage(await orientedJpeg(), { maxSide: 60 });
    expect([rotated.width, rotated.height]).toEqual([20, 60]);
    const meta = await sharp(rotated.bytes).metadata();
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    expect(meta.space).toBe('srgb');
  });

  it('encodes without optimised Huffman tables: a few more bytes, exactly the pixels the optimised encoding gives', async () => {
    const photo = await photoJpeg(640, 480, 11);
    const stored = await normaliseForStorage(photo, { keepJpeg: false });
    const optimised = await sharp(photo).jpeg({ quality: DEFAULT_STORAGE_QUALITY }).toBuffer();
    expect(stored.bytes.length).toBeGreaterThan(optimised.length);
    const [a, b] = await Promise.all([decodeImage(stored.bytes), decodeImage(optimised)]);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
  });

  it('keeps an upright sRGB JPEG as it came, without its metadata, with the pixels its stored bytes decode to', async () => {
    const photo = await sharp(await photoJpeg(320, 240, 12)).withExif({ IFD0: { Copyright: 'GPS-SECRET' } }).jpeg({ quality: 85 }).toBuffer();
    const stored = await normaliseForStorage(photo);
    expect([stored.width, stored.height, stored.pixels?.width, stored.pixels?.height]).toEqual([320, 240, 320, 240]);
    expect(stored.bytes.length).toBeLessThan(photo.length);
    expect(Buffer.from(stored.bytes).includes('GPS-SECRET')).toBe(false);
    expect((await sharp(stored.bytes).metadata()).exif).toBeUndefined();
    // Exactly what decoding the stored copy gives, and what the original decodes to.
    const back = await decodeImage(stored.bytes);
    expect(Buffer.from(back.data).equals(Buffer.from(stored.pixels!.data))).toBe(true);
    expect(Buffer.from((await decodeImage(photo)).data).equals(Buffer.from(stored.pixels!.data))).toBe(true);
    // The pixels move to the thread that takes them instead of being copied there.
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(stored.pixels!.data, [stored.pixels!.data.buffer as ArrayBuffer]);
    expect(stored.pixels!.data.buffer.byteLength).toBe(0);
    port1.close();
    port2.close();
  });

  it('re-encodes, without pixels, what cannot be kept as it came', async () => {
    const cases = [
      await orientedJpeg(), // turned by its EXIF orientation
      await sharp(await photoJpeg(320, 240, 13)).withIccProfile('p3').jpeg().toBuffer(), // a colour profile
      await photoJpeg(1200, 900, 14), // larger than the stored side
      await sharp(await photoJpeg(64, 48, 15)).toColourspace('b-w').jpeg().toBuffer(), // not three channels
      await sharp(photoPixels(64, 48, 16).data, rawInput(photoPixels(64, 48, 16))).png().toBuffer(),
      // More bytes per pixel than a photo needs (quality 100 of noise).
      await sharp(Buffer.from(Array.from({ length: 64 * 48 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 64, height: 48, channels: 3 } }).jpeg({ quality: 100 }).toBuffer(),
    ];
    for (const bytes of cases) {
      const stored = await normaliseForStorage(bytes);
      expect(stored.pixels).toBeUndefined();
      expect(sniffImageFormat(stored.bytes)).toBe('jpeg');
    }
  });

  it('puts transparent areas on white and keeps small images at their size', async () => {
    const stored = await normaliseForStorage(await alphaPng());
    expect([stored.width, stored.height]).toEqual([64, 32]);
    const back = await decodeImage(stored.bytes);
    expect(near(pixel(back, 5, 5), [255, 255, 255], 4)).toBe(true);
  });
});

describe('parseLoc', () => {
  it.each([
    ['0-0-1-1', [0, 0, 1, 1]],
    ['0.1-0.2-0.5-0.5', [0.1, 0.2, 0.5, 0.5]],
    [' .25-.25-.5-.5 ', [0.25, 0.25, 0.5, 0.5]],
    ['[0.1, 0.2, 0.3, 0.4]', [0.1, 0.2, 0.3, 0.4]],
    ['(0.1, 0.2, 0.3, 0.4)', [0.1, 0.2, 0.3, 0.4]],
    ['0.1,0.2,0.3,0.4', [0.1, 0.2, 0.3, 0.4]],
    ['0.1 0.2 0.3 0.4', [0.1, 0.2, 0.3, 0.4]],
    ['[1e-1, 0, 0.9, 1]', [0.1, 0, 0.9, 1]],
    ['0.1-0-0.9000001-1', [0.1, 0, 0.9, 1]],
  ] as const)('reads %j', (text, expected) => {
    const loc = parseLoc(text);
    loc.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });

  it('accepts lists of numbers or strings (repeated form fields)', () => {
    expect(parseLoc([0, 0.5, 1, 0.5])).toEqual([0, 0.5, 1, 0.5]);
    expect(parseLoc(['0', '0.5', '1', '0.5'])).toEqual([0, 0.5, 1, 0.5]);
    expect(parseLoc(['0-0.5-1-0.5'])).toEqual([0, 0.5, 1, 0.5]);
  });

  it.each(['', 'abc', '0-0-1', '0-0-1-1-1', '0-0-0-1', '0-0-1-0', '0.5-0-0.6-1', '0-0.2-1-0.9', '-0.1-0-0.5-0.5', '[0,0,"x",1]', '0-0-NaN-1', '0-0-Infinity-1', '[0,0,1]'])(
    'refuses %j as bad-crop',
    (text) => {
      expect(() => parseLoc(text)).toThrow(ImageDecodeError);
      try {
        parseLoc(text);
      } catch (err) {
        expect((err as ImageDecodeError).kind).toBe('bad-crop');
      }
    },
  );
});
