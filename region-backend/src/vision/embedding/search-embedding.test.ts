/**
 * Indexing in two passes (docs/search.md, "Two passes"): a first pass of the scenario's views, then a second of
 * the thumbnail views added to the first's view sum, with the keypoints, must give exactly what one pass gives,
 * with the built-in embedder and with an operator's ONNX embedder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../../../test/support/test-images.js';
import { writeTinyEncoder } from '../../../test/support/tiny-encoder.js';
import { embedderIdentity, refOf, type EmbedderRef } from './embedder-identity.js';
import { EmbedInputError } from './embedder.js';
import { normaliseForStorage } from '../../images/image-decoder.js';
import { embedForIndex, embedForIndexMany, type IndexEmbedding } from './search-embedding.js';

let dir: string;
let photos: Buffer[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'iris-index-passes-'));
  photos = [await photoJpeg(640, 480, 5), await photoJpeg(480, 640, 9)];
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function twoPasses(image: Buffer, scenario: string, embedder?: EmbedderRef): Promise<{ first: IndexEmbedding; second: IndexEmbedding }> {
  const first = await embedForIndex({ image, scenario, pass: 'first', ...(embedder ? { embedder } : {}) });
  const second = await embedForIndex({ image, scenario, pass: 'second', viewSum: first.viewSum!, ...(embedder ? { embedder } : {}) });
  return { first, second };
}

describe('indexing in two passes', () => {
  it('gives the one-pass vector and keypoints bit for bit with the built-in embedder, for one-view and three-view scenarios', async () => {
    for (const scenario of ['general', 'fashion']) {
      for (const image of photos) {
        const whole = await embedForIndex({ image, scenario });
        const { first, second } = await twoPasses(image, scenario);
        expect(first.features).toBeNull();
        expect(first.viewSum!.length).toBeGreaterThan(whole.vector.length);
        // The first pass alone is a usable vector, near the whole one (the thumbnail view adds to it).
        expect(Array.from(first.vector)).not.toEqual(Array.from(whole.vector));
        expect(first.vector.reduce((s, v, i) => s + v * whole.vector[i]!, 0)).toBeGreaterThan(0.8);
        expect(Array.from(second.vector)).toEqual(Array.from(whole.vector));
        expect(Array.from(second.features!)).toEqual(Array.from(whole.features!));
        expect(second.viewSum).toBeNull();
        expect([second.width, second.height]).toEqual([whole.width, whole.height]);
      }
    }
  });

  it('gives the one-pass vector with an ONNX embedder plugged in by manifest', async () => {
    const embedder = refOf(await embedderIdentity(writeTinyEncoder(dir, 'grid', 'vector', { dim: 48 })));
    const whole = await embedForIndex({ image: photos[0]!, scenario: 'general', embedder });
    const { first, second } = await twoPasses(photos[0]!, 'general', embedder);
    expect(first.viewSum).toHaveLength(48);
    expect(Array.from(second.vector)).toEqual(Array.from(whole.vector));
  });

  it('a first pass from the pixels kept at download gives the vector of the stored copy bit for bit', async () => {
    for (const photo of photos) {
      const stored = await normaliseForStorage(photo);
      expect(stored.pixels).toBeDefined();
      for (const scenario of ['general', 'fashion']) {
        const [fromBytes, fromPixels] = await embedForIndexMany([
          { image: stored.bytes, scenario, pass: 'first' },
          { rgb: stored.pixels!, scenario, pass: 'first' },
        ]);
        expect(Array.from((fromPixels as IndexEmbedding).viewSum!)).toEqual(Array.from((fromBytes as IndexEmbedding).viewSum!));
        expect(Array.from((fromPixels as IndexEmbedding).vector)).toEqual(Array.from((fromBytes as IndexEmbedding).vector));
        expect([(fromPixels as IndexEmbedding).width, (fromPixels as IndexEmbedding).height]).toEqual([stored.width, stored.height]);
      }
    }
  });

  it('a second pass from the pixels its first pass answered gives the keypoints and vector of the stored copy bit for bit', async () => {
    for (const photo of photos) {
      const stored = await normaliseForStorage(photo);
      for (const scenario of ['general', 'fashion']) {
        // The first pass starts from the download's pixels or from the stored copy, as the indexer's do.
        const firsts = (await embedForIndexMany([
          { rgb: stored.pixels!, scenario, pass: 'first', keepPixels: true },
          { image: stored.bytes, scenario, pass: 'first', keepPixels: true },
        ])) as IndexEmbedding[];
        const [fromBytes, ...fromKept] = (await embedForIndexMany([
          { image: stored.bytes, scenario, pass: 'second', viewSum: firsts[1]!.viewSum! },
          ...firsts.map((f) => ({ rgb: f.rgb!, scenario, pass: 'second' as const, viewSum: f.viewSum! })),
        ])) as IndexEmbedding[];
        expect(fromKept).toHaveLength(2);
        for (const second of fromKept) {
          expect(Array.from(second.vector)).toEqual(Array.from(fromBytes!.vector));
          expect(Array.from(second.features!)).toEqual(Array.from(fromBytes!.features!));
        }
      }
    }
  });

  it('answers the pixels of a first pass only when asked with `true` and without a crop', async () => {
    const [asked, cropped, notFirst] = (await embedForIndexMany([
      { image: photos[0]!, scenario: 'general', pass: 'first', keepPixels: true },
      { image: photos[0]!, scenario: 'general', pass: 'first', keepPixels: true, loc: [0, 0, 0.5, 0.5] },
      { image: photos[0]!, scenario: 'general', keepPixels: true },
    ])) as IndexEmbedding[];
    expect([asked!.rgb!.width, asked!.rgb!.height]).toEqual([640, 480]);
    expect(asked!.rgb!.data.length).toBe(640 * 480 * 3);
    // They move to the main thread instead of being copied there.
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(asked!.rgb!.data, [asked!.rgb!.data.buffer as ArrayBuffer]);
    expect(asked!.rgb!.data.buffer.byteLength).toBe(0);
    port1.close();
    port2.close();
    expect(cropped!.rgb).toBeUndefined();
    expect(notFirst!.rgb).toBeUndefined();
    await fc.assert(
      fc.asyncProperty(fc.anything().filter((v) => v !== true), async (value) => {
        const [answer] = await embedForIndexMany([{ image: photos[1]!, scenario: 'general', pass: 'first', keepPixels: value as boolean }]);
        expect((answer as IndexEmbedding).rgb).toBeUndefined();
      }),
      { numRuns: 8 },
    );
  });

  it('refuses a second pass without a usable view sum as a bad input of that image only', async () => {
    const { first } = await twoPasses(photos[0]!, 'general');
    const answers = await embedForIndexMany([
      { image: photos[0]!, scenario: 'general', pass: 'second' },
      { image: photos[0]!, scenario: 'general', pass: 'second', viewSum: new Float32Array(7) },
      { image: photos[0]!, scenario: 'general', pass: 'second', viewSum: first.viewSum! },
      { image: photos[1]!, scenario: 'general', pass: 'first' },
    ]);
    expect(answers[0]).toBeInstanceOf(EmbedInputError);
    expect(answers[1]).toBeInstanceOf(EmbedInputError);
    expect((answers[2] as IndexEmbedding).features).not.toBeNull();
    expect((answers[3] as IndexEmbedding).viewSum).not.toBeNull();
  });

  it('property: a view sum of any other length is refused, never a thread error', async () => {
    const { first } = await twoPasses(photos[1]!, 'general');
    const right = first.viewSum!.length;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 * right }).filter((n) => n !== right),
        fc.float({ noNaN: false }),
        async (length, value) => {
          const [answer] = await embedForIndexMany([{ image: photos[1]!, scenario: 'general', pass: 'second', viewSum: new Float32Array(length).fill(value) }]);
          expect(answer).toBeInstanceOf(EmbedInputError);
        },
      ),
      { numRuns: 12 },
    );
  });
});
