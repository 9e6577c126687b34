/**
 * A downloaded picture's pixels are written by its decode thread straight into a slot of the process's pixel
 * arena (images/pixel-arena.ts), which the pixel table then holds: the main thread never receives them. Every
 * way a store can end gives the slot back or hands it to the table, and a decode that may still be running
 * keeps its slot out of use until its thread has surely stopped.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeImage } from '../../src/domains/downloads/image-download.js';
import { decodeImage } from '../../src/images/image-decoder.js';
import { ImageDecodeError } from '../../src/images/image-errors.js';
import type { RgbImage } from '../../src/images/rgb-image.js';
import { ImageDecoderPool } from '../../src/inference/image-decoder-pool.js';
import { STOP_GRACE_MS } from '../../src/inference/inference-pool.js';
import { photoJpeg } from '../support/test-images.js';
import { startTestBackend, type TestBackend } from '../support/test-app.js';

describe('pixels written into the arena by the decode thread', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startTestBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });

  /** Stores the bytes as a download does, the pixels going to the process's table; answers what the table was told. */
  const store = async (bytes: Uint8Array, admit?: () => Promise<void>) => {
    const { app } = backend;
    const told: RgbImage[] = [];
    const stored = await storeImage(app.blobWriter, app.config.images, app.decoder, bytes, {
      pixels: (key, pixels) => {
        told.push(pixels);
        app.recentPixels.put(key, pixels);
      },
      slots: app.recentPixels,
      ...(admit ? { admit } : {}),
    });
    return { stored, told };
  };
  /** No slot is held but those the table holds. */
  const noStraySlots = () => expect(backend.app.pixelArena.held).toBe(backend.app.recentPixels.count);

  it('hands the table a slot holding exactly the pixels the stored copy decodes to', async () => {
    const photo = await photoJpeg(320, 240, 5);
    const { stored, told } = await store(photo);
    expect(told).toHaveLength(1);
    const pixels = told[0]!;
    expect(pixels.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(backend.app.pixelArena.holds(pixels)).toBe(true);
    const decoded = await decodeImage((await backend.app.blobs.get(stored.blobKey))!);
    expect([pixels.width, pixels.height]).toEqual([decoded.width, decoded.height]);
    expect(Buffer.from(pixels.data).equals(Buffer.from(decoded.data))).toBe(true);
    const taken = backend.app.recentPixels.take(stored.blobKey)!;
    expect(taken.data.byteOffset).toBe(pixels.data.byteOffset);
    backend.app.recentPixels.release(taken);
    noStraySlots();
  });

  it('gives the slot back when the copy is re-encoded, refused by the quota, or not a picture', async () => {
    const before = backend.app.pixelArena.held;
    // A JPEG with a colour profile is re-encoded: no pixels come back, the slot is not used.
    const profiled = await sharp(await photoJpeg(200, 150, 6)).withIccProfile('p3').jpeg().toBuffer();
    expect((await store(profiled)).told).toEqual([]);
    // Decoded into the slot, then refused before it is stored.
    const refused = await store(await photoJpeg(200, 150, 7), () => Promise.reject(new Error('over the stored-bytes quota'))).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/quota/);
    // A JPEG header over bytes that do not decode: the decode thread answers the error, the slot is free at once.
    const header = (await photoJpeg(200, 150, 8)).subarray(0, 700);
    const broken = await store(Buffer.concat([header, Buffer.alloc(4000, 0x55)])).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ImageDecodeError);
    expect(backend.app.pixelArena.held).toBe(before);
    noStraySlots();
  });

  it('keeps the slot of a decode stopped by its time limit out of use until its thread has surely stopped', async () => {
    const slow = new ImageDecoderPool(1, { maxPixels: 100_000_000, timeoutMs: 5 });
    try {
      const big = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#48c' } }).jpeg().toBuffer();
      const timedOut = await slow.forStorage(big, { maxSide: 8000 }).catch((e: unknown) => e);
      expect(timedOut).toBeInstanceOf(ImageDecodeError);
      expect(slow.slotFreeAfter(timedOut)).toBeGreaterThan(STOP_GRACE_MS);
      // Answered by the decode thread (not a picture): nothing runs on after the answer.
      const answered = await backend.app.decoder.forStorage(Buffer.from('%PDF-1.4\n')).catch((e: unknown) => e);
      expect(answered).toBeInstanceOf(ImageDecodeError);
      expect(backend.app.decoder.slotFreeAfter(answered)).toBe(0);
    } finally {
      await slow.close();
    }
  });
});
