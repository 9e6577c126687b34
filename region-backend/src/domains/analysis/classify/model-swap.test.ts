/**
 * Proof that an operator swaps a stage's model with configuration alone: an ONNX classifier written by the
 * test replaces the pornography and scene classifiers through IRIS_MODEL_OVERRIDES, and the services answer
 * with that model's categories and scores.
 */
import type { RgbImage } from '../../../images/rgb-image.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import { resetModelConfig } from '../../../vision/runtime/model-config.js';
import { bands } from '../../../../test/support/sample-images.js';
import { pornHandler } from './porn.handler.js';
import { sceneHandler } from './scene.handler.js';
import { colourClassifierOnnx } from '../../../../test/support/tiny-onnx.js';

let pool: InferencePool;

beforeAll(() => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-model-swap-'));
  // Two classes: red pictures → class 0, blue pictures → class 1.
  writeFileSync(path.join(dir, 'colour.onnx'), colourClassifierOnnx(8, 8, [[6, -6], [0, 0], [-6, 6]]));
  const base = { runtime: 'onnx', file: 'colour.onnx', inputSize: [8, 8], layout: 'nchw', normalisation: { scale: 255 }, output: { type: 'probabilities' } };
  writeFileSync(path.join(dir, 'porn.json'), JSON.stringify({ ...base, name: 'operator-porn', labels: [{ id: 'porn', en: 'porn', zh: '色情' }, { id: 'non-porn', en: 'non-porn', zh: '非色情' }] }));
  writeFileSync(path.join(dir, 'scene.json'), JSON.stringify({ ...base, name: 'operator-scene', labels: [{ id: 'sunset', en: 'sunset', zh: '日落' }, { id: 'ocean', en: 'ocean', zh: '海洋' }] }));
  writeFileSync(path.join(dir, 'overrides.json'), JSON.stringify({ 'porn-classifier': 'porn.json', 'scene-classifier': 'scene.json' }));
  process.env.IRIS_MODEL_OVERRIDES = path.join(dir, 'overrides.json');
  resetModelConfig();
  // Worker threads copy the environment when they start: the pool sees the overrides.
  pool = new InferencePool(1);
});

afterAll(async () => {
  await pool.close();
  delete process.env.IRIS_MODEL_OVERRIDES;
  resetModelConfig();
});

const red: RgbImage = bands(40, 30, [[230, 20, 20]]);
const blue: RgbImage = bands(40, 30, [[20, 20, 230]]);

async function run(handler: typeof pornHandler, rgb: RgbImage, lang: 'en' | 'zh' = 'en') {
  const out = await handler.run({ pool }, { rgb, encoded: new Uint8Array(), params: {}, lang });
  return out.results as { category: string; puid: string; score: number }[];
}

describe('model swap through IRIS_MODEL_OVERRIDES', () => {
  it('the pornography service answers with the operator ONNX model', async () => {
    const r = await run(pornHandler, red);
    expect(r[0]).toEqual({ category: 'Porn', puid: 'porn.porn', score: expect.any(Number) });
    expect(r[0]!.score).toBeGreaterThan(0.99);
    const b = await run(pornHandler, blue);
    expect(b[0]!.category).toBe('Non-porn');
    expect(b[0]!.score).toBeGreaterThan(0.99);
  });

  it("the scene service answers the operator model's own labels, per language", async () => {
    const r = await run(sceneHandler, red, 'zh');
    expect(r.map((x) => x.category)).toEqual(['日落', '海洋']);
    expect(r[0]!.puid).toBe('scene.sunset');
    expect(r[0]!.score).toBeGreaterThan(0.99);
    const b = await run(sceneHandler, blue);
    expect(b[0]!.category).toBe('ocean');
  });
});
