import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageDecodeError } from '../images/image-errors.js';
import { SVG_IMAGE } from '../../test/support/test-images.js';
import { ImageDecoderPool } from './image-decoder-pool.js';

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#48c' } }).png().toBuffer();

describe('ImageDecoderPool: the one decode path', () => {
  const decoder = new ImageDecoderPool(1, { maxPixels: 50_000, timeoutMs: 10_000 });
  afterAll(() => decoder.close());

  const kind = (p: Promise<unknown>) =>
    p.then(
      () => 'decoded',
      (err: unknown) => (err instanceof ImageDecodeError ? err.kind : `other: ${String(err)}`),
    );

  it('decodes on a decode thread, scaled and cropped, and keeps the configured pixel limit', async () => {
    const rgb = await decoder.rgb(await png(200, 100), { maxSide: 50, crop: [0, 0, 0.5, 1] });
    expect([rgb.width, rgb.height, rgb.data.length]).toEqual([50, 50, 50 * 50 * 3]);
    expect(await kind(decoder.rgb(await png(300, 200)))).toBe('too-many-pixels');
    expect(await kind(decoder.forStorage(await png(300, 200)))).toBe('too-many-pixels');
    expect(await kind(decoder.reference(await png(300, 200)))).toBe('too-many-pixels');
  });

  it('keeps SVG and other formats out with undecodable', async () => {
    expect(await kind(decoder.rgb(SVG_IMAGE))).toBe('undecodable');
    expect(await kind(decoder.forStorage(Buffer.from('%PDF-1.4\n')))).toBe('undecodable');
  });

  it('stops a decode past its time limit, answers undecodable, and decodes the next image', async () => {
    const slow = new ImageDecoderPool(1, { maxPixels: 100_000_000, timeoutMs: 5 });
    try {
      const big = await png(6000, 4000);
      const err = await slow.rgb(big).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImageDecodeError);
      expect((err as Error).message).toMatch(/took longer than/);
    } finally {
      await slow.close();
    }
    expect((await decoder.rgb(await png(10, 10))).width).toBe(10);
  });

  it('returns the reference PNG copy as a Buffer', async () => {
    const ref = await decoder.reference(await png(100, 50));
    expect(Buffer.isBuffer(ref.png)).toBe(true);
    expect(ref.rgba.width * ref.rgba.height * 4).toBe(ref.rgba.data.length);
  });
});
