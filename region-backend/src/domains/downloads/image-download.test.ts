/**
 * Which download failures a record is retried after: a decode stopped by its time limit is the machine's load
 * (the pixel limits bound the work), so it is tried again; bytes that are not an image fail the record at once.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { classifyFailure } from './image-download.js';

describe('classifyFailure', () => {
  const slow = new ImageDecoderPool(1, { maxPixels: 100_000_000, timeoutMs: 5 });
  const decoder = new ImageDecoderPool(1, { maxPixels: 100_000_000, timeoutMs: 10_000 });
  afterAll(async () => {
    await slow.close();
    await decoder.close();
  });

  it('retries a record whose decode ran past its time limit', async () => {
    const big = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#48c' } }).png().toBuffer();
    const err = await slow.forStorage(big).catch((e: unknown) => e);
    const failure = classifyFailure(err);
    expect(failure.message).toMatch(/took longer than/);
    expect(failure.permanent).toBe(false);
  });

  it('fails a record at once when its bytes are not an image', async () => {
    const err = await decoder.forStorage(Buffer.from('%PDF-1.4\n')).catch((e: unknown) => e);
    expect(classifyFailure(err).permanent).toBe(true);
  });
});
