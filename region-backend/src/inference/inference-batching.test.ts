import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { realPhoto, REAL_PHOTOS } from '../../test/support/real-photos.js';
import { InferencePool, InferenceTaskError } from './inference-pool.js';

const pool = new InferencePool(1);
afterAll(() => pool.close());

async function jpeg(name: (typeof REAL_PHOTOS)[number], side: number): Promise<Uint8Array> {
  const img = await realPhoto(name, side);
  return new Uint8Array(await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).jpeg().toBuffer());
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

describe('dynamic batching of background work', () => {
  it('gathers queued background embeds into batches with the same vectors as one by one; a bad image fails alone', async () => {
    const images = await Promise.all([...REAL_PHOTOS, ...REAL_PHOTOS].map((name, i) => jpeg(name, i < 3 ? 640 : 480)));
    const single: Float32Array[] = [];
    for (const image of images) single.push((await pool.run('embed', { image: image.slice() }, { priority: 'interactive' })).vector);
    expect(pool.batchedJobs).toBe(0);
    // The worker is busy with the first job while the others queue up behind it.
    const runs = images.map((image) => pool.run('embed', { image: image.slice() }, { priority: 'background' }));
    const bad = pool.run('embed', { image: new Uint8Array([1, 2, 3]) }, { priority: 'background' });
    const batched = await Promise.all(runs);
    await expect(bad).rejects.toBeInstanceOf(InferenceTaskError);
    expect(pool.batchedJobs).toBeGreaterThanOrEqual(images.length - 1);
    batched.forEach((r, i) => expect(cosine(r.vector, single[i]!)).toBeGreaterThan(0.9999));
  });

  it('interactive calls go before queued background batches', async () => {
    const image = await jpeg('samples.jpg', 320);
    const order: string[] = [];
    const background = Array.from({ length: 6 }, () => pool.run('embed', { image: image.slice() }, { priority: 'background' }).then(() => order.push('background')));
    const interactive = pool.run('embed', { image: image.slice() }, { priority: 'interactive' }).then(() => order.push('interactive'));
    await Promise.all([...background, interactive]);
    // At most the batch already on the thread finishes first.
    expect(order.indexOf('interactive')).toBeLessThanOrEqual(1);
  });
});

describe('interactive reserve', () => {
  it('with two tiers, background work takes every low-priority thread and no first-tier one', async () => {
    const two = new InferencePool(2);
    try {
      // Background work spreads over both low-priority threads once they have loaded, and never more.
      const used = new Set<number>();
      for (let round = 0; round < 50 && used.size < 2; round++) {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => two.run('ping', { spinMs: 20, i }, { priority: 'background' })));
        for (const a of answers) used.add(a.threadId);
      }
      expect(used.size).toBe(2);
      const interactive = await two.run('ping', 'interactive', { priority: 'interactive' });
      expect([...used]).not.toContain(interactive.threadId);
    } finally {
      await two.close();
    }
  });

  it('with one tier, after an interactive call, background work leaves one of two threads free; without one it takes both', async () => {
    const two = new InferencePool(2, { lowPriorityThreads: 0 });
    try {
      // Both threads ready (background calls only: no interactive call yet).
      const seen = new Set<number>();
      while (seen.size < 2) {
        const answers = await Promise.all([1, 2, 3, 4].map((i) => two.run('ping', i, { priority: 'background' })));
        for (const a of answers) seen.add(a.threadId);
      }
      const quiet = Array.from({ length: 4 }, (_, i) => two.run('ping', i, { priority: 'background' }));
      expect(two.waiting.background).toBe(2);
      await Promise.all(quiet);
      await two.run('ping', 'interactive', { priority: 'interactive' });
      const busy = Array.from({ length: 4 }, (_, i) => two.run('ping', i, { priority: 'background' }));
      expect(two.waiting.background).toBe(3);
      await Promise.all(busy);
    } finally {
      await two.close();
    }
  });
});
