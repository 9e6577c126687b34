/**
 * Standard models plug in by manifest alone: YOLO exports (v5 and v8 output layouts, letterboxed input, a
 * labels file) behind a detect stage, and a softmax classifier whose labels come from a file. The ONNX
 * files are built here: fixed candidate boxes whose class scores come from the picture's mean colour.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetModelConfig, resolveManifest } from '../../vision/runtime/model-config.js';
import visionDetect from './vision-detect.task.js';
import visionClassify from './vision-classify.task.js';
import { OnnxBuilder } from '../../vision/convert/onnx-builder.js';

let dir: string;

/**
 * Input [1, 3, 64, 64] (NCHW, 0..1) → mean colour [1, 3] → × weights → sigmoid: class scores of each of
 * `boxes.length` candidates; boxes (cx, cy, w, h, input pixels) are constants. Output in the v5 or v8 layout.
 */
function tinyYolo(layout: 'v5' | 'v8', boxes: number[][], weights: number[][][]): Uint8Array {
  const b = new OnnxBuilder();
  const n = boxes.length;
  const classes = weights[0]!.length;
  b.input('images', 'float32', [1, 3, 64, 64]);
  const mean = b.op('Reshape', [b.op('GlobalAveragePool', ['images']), b.int64s('shape', [1, 3])]);
  // weights[candidate][class][channel] → a [3, n * classes] matrix; scores laid out [n, classes].
  const w = new Float32Array(3 * n * classes);
  weights.forEach((perClass, i) => perClass.forEach((ch, c) => ch.forEach((v, k) => (w[k * n * classes + i * classes + c] = v))));
  const scores = b.op('Sigmoid', [b.op('Reshape', [b.op('MatMul', [mean, b.constant('w', 'float32', [3, n * classes], w)]), b.int64s('s', [1, n, classes])])]);
  const coords = b.constant('boxes', 'float32', [1, n, 4], boxes.flat());
  let out: string;
  if (layout === 'v5') {
    const objectness = b.constant('obj', 'float32', [1, n, 1], Array(n).fill(0.9));
    out = b.op('Concat', [coords, objectness, scores], { axis: 2 });
  } else {
    out = b.op('Transpose', [b.op('Concat', [coords, scores], { axis: 2 })], { perm: [0, 2, 1] });
  }
  b.node('Identity', [out], {}, ['output0']);
  b.output('output0', 'float32');
  return b.encode('tiny-yolo', '');
}

function solid(width: number, height: number, rgb: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return { data, width, height };
}

// Candidates: two overlapping boxes of class "apple" and one box of class "pear", in 64×64 input pixels.
const BOXES = [[16, 16, 16, 16], [17, 17, 16, 16], [48, 24, 16, 16]];
// Red pictures make the first two candidates "apple"; green ones make all three "pear".
const WEIGHTS = [[[12, -12, 0], [-12, 12, 0]], [[10, -10, 0], [-12, 12, 0]], [[0, 0, -12], [-12, 12, 0]]];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'iris-standard-models-'));
  writeFileSync(path.join(dir, 'labels.txt'), 'apple\t苹果\npear\t梨\n');
  const overrides: Record<string, string> = {};
  for (const layout of ['v5', 'v8'] as const) {
    writeFileSync(path.join(dir, `yolo-${layout}.onnx`), tinyYolo(layout, BOXES, WEIGHTS));
    writeFileSync(
      path.join(dir, `yolo-${layout}.json`),
      JSON.stringify({
        name: `tiny-yolo-${layout}`, runtime: 'onnx', file: `yolo-${layout}.onnx`, inputSize: [64, 64], resize: 'letterbox', layout: 'nchw',
        labelsFile: 'labels.txt', output: { type: 'yolo', layout, minScore: 0.5, iouThreshold: 0.5 },
      }),
    );
    overrides[`detect-${layout}`] = `yolo-${layout}.json`;
  }
  writeFileSync(path.join(dir, 'overrides.json'), JSON.stringify(overrides));
  process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides.json');
  resetModelConfig();
});

afterAll(() => {
  delete process.env.IRIS_MODEL_OVERRIDES;
  resetModelConfig();
  rmSync(dir, { recursive: true, force: true });
});

describe('YOLO exports by manifest', () => {
  for (const layout of ['v5', 'v8'] as const) {
    it(`${layout} layout: labels from the file, NMS, boxes mapped back from the letterbox`, async () => {
      expect(resolveManifest(`detect-${layout}`).labels?.[1]).toEqual({ id: 'pear', en: 'pear', zh: '梨' });
      // 128×64 red picture → letterboxed to 64×32 inside the 64×64 input: x / 64, y / 32.
      const red = await visionDetect({ stage: `detect-${layout}`, image: solid(128, 64, [230, 10, 10]) });
      expect(red.model).toBe(`tiny-yolo-${layout}`);
      expect(red.detections.map((d) => d.label)).toEqual(['apple']);
      const [x, y, w, h] = red.detections[0]!.box;
      expect([x, y, w, h].map((v) => Math.round(v * 100) / 100)).toEqual([0.13, 0.25, 0.25, 0.5]);
      const green = await visionDetect({ stage: `detect-${layout}`, image: solid(128, 64, [10, 230, 10]) });
      expect(green.detections.map((d) => d.label).sort()).toEqual(['pear', 'pear']);
    });
  }
});

describe('softmax classifier with a labels file', () => {
  it('answers the labels of the file in output order', async () => {
    const manifest = { name: 'fruit', runtime: 'onnx', file: 'fruit.onnx', inputSize: [8, 8], layout: 'nchw', labelsFile: 'labels.txt', output: { type: 'softmax' } };
    // Mean colour → two logits (apple, pear).
    const b = new OnnxBuilder();
    b.input('x', 'float32', [1, 3, 8, 8]);
    const mean = b.op('Reshape', [b.op('GlobalAveragePool', ['x']), b.int64s('shape', [1, 3])]);
    b.node('MatMul', [mean, b.constant('w', 'float32', [3, 2], [8, -8, -8, 8, 0, 0])], {}, ['logits']);
    b.output('logits', 'float32');
    writeFileSync(path.join(dir, 'fruit.onnx'), b.encode('fruit', ''));
    writeFileSync(path.join(dir, 'fruit.json'), JSON.stringify(manifest));
    writeFileSync(path.join(dir, 'overrides.json'), JSON.stringify({ 'fruit-classifier': 'fruit.json' }));
    resetModelConfig();
    const result = (await visionClassify({ stage: 'fruit-classifier', image: solid(20, 20, [10, 240, 10]) })) as { scores: { id: string; score: number }[] };
    const top = [...result.scores].sort((p, q) => q.score - p.score)[0]!;
    expect(top.id).toBe('pear');
    expect(top.score).toBeGreaterThan(0.9);
  });
});
