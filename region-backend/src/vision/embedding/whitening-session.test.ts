import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMBEDDING_PIPELINE } from './embedding-info.js';
import { l2normalise } from './feature-pooling.js';
import { applyWhitening, decodeWhitening } from './pca-whitening.js';
import { whitenMany } from './whitening-session.js';

const whitening = decodeWhitening(readFileSync(new URL(EMBEDDING_PIPELINE.whitening.file, import.meta.url))).whitening;

describe('whitening a batch on ONNX Runtime', () => {
  it('gives each vector what applyWhitening gives it, within float rounding, in the order given', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (count, seed) => {
        let s = seed;
        const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
        // Pooled descriptors are non-negative (ReLU maps), a few channels strong.
        const xs = Array.from({ length: count }, () => l2normalise(Float32Array.from({ length: whitening.inputDim }, () => next() ** 4)));
        const batch = await whitenMany(whitening, 'test', xs);
        expect(batch).toHaveLength(count);
        batch.forEach((y, i) => {
          const expected = applyWhitening(whitening, xs[i]!);
          let largest = 0;
          for (let k = 0; k < y.length; k++) largest = Math.max(largest, Math.abs(y[k]! - expected[k]!));
          expect(largest).toBeLessThan(1e-5);
        });
      }),
      { numRuns: 20 },
    );
  });

  it('refuses a vector of the wrong length and answers nothing for no vectors', async () => {
    await expect(whitenMany(whitening, 'test', [new Float32Array(3)])).rejects.toThrow(/expects/);
    await expect(whitenMany(whitening, 'test', [])).resolves.toEqual([]);
  });
});
