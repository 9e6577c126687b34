/**
 * Tiny ONNX image encoders for tests, built with the converter's ONNX writer, and their embedder manifests:
 * a 4×4 grid of mean colours ([1, 48], like a CLIP image tower's `image_embeds`), the same grid as a sequence
 * of tokens ([1, T, D] with a first CLS token, like DINOv2's `last_hidden_state`) or as a feature map.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { OnnxBuilder } from '../../src/vision/convert/onnx-builder.js';

/**
 * Input [1, 3, 32, 32] NCHW → 8×8 average pooling → [1, 3, 4, 4], written out as `layout`. `slow` adds that
 * many 3×3 convolutions of 256 channels whose result is multiplied by zero and added (about 0.6 GFLOP each:
 * the vectors do not change, the model just takes time, so a test can act while a rebuild is under way).
 */
export function tinyEncoder(layout: 'vector' | 'tokens' | 'map', bias = 0, slow = 0): Uint8Array {
  const b = new OnnxBuilder();
  b.input('pixel_values', 'float32', [1, 3, 32, 32]);
  let x = b.op('AveragePool', ['pixel_values'], { kernel_shape: [8, 8], strides: [8, 8] });
  if (bias) x = b.op('Add', [x, b.constant('bias', 'float32', [1], [bias])]);
  if (slow) {
    const weights = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 0.01);
    let h = b.op('Conv', ['pixel_values', b.constant('w0', 'float32', [256, 3, 3, 3], weights(256 * 27))], { pads: [1, 1, 1, 1] });
    for (let k = 0; k < slow; k++) h = b.op('Conv', [h, b.constant(`w${k + 1}`, 'float32', [256, 256, 3, 3], weights(256 * 256 * 9))], { pads: [1, 1, 1, 1] });
    const zero = b.op('Mul', [b.op('ReduceMean', [h], { keepdims: 0 }), b.constant('zero', 'float32', [], [0])]);
    x = b.op('Add', [x, zero]);
  }
  let out: string;
  if (layout === 'vector') out = b.op('Reshape', [x, b.int64s('shape', [1, 48])]);
  // 16 tokens of 3 channels, then a first "CLS" token: the mean of all.
  else if (layout === 'tokens') {
    const tokens = b.op('Transpose', [b.op('Reshape', [x, b.int64s('shape', [1, 3, 16])])], { perm: [0, 2, 1] });
    const cls = b.op('ReduceMean', [tokens], { axes: [1], keepdims: 1 });
    out = b.op('Concat', [cls, tokens], { axis: 1 });
  } else out = x;
  b.node('Identity', [out], {}, ['embeds']);
  b.output('embeds', 'float32');
  return b.encode('tiny-encoder', '');
}

/** Writes `<name>.onnx` and `<name>.json` (an `image-embedder` manifest) into `dir`; answers the manifest path. */
export function writeTinyEncoder(dir: string, name: string, layout: 'vector' | 'tokens' | 'map', output: object, bias = 0, slow = 0): string {
  writeFileSync(path.join(dir, `${name}.onnx`), tinyEncoder(layout, bias, slow));
  const manifest = {
    name, runtime: 'onnx', file: `${name}.onnx`, inputSize: [32, 32], layout: 'nchw', inputName: 'pixel_values', outputNames: ['embeds'],
    normalisation: { scale: 255, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] }, output: { type: 'embedding', ...output },
  };
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(manifest));
  return file;
}
