/**
 * The QDQ quantiser on a small network this test builds (Conv → Clip → Conv, a residual Add, a Conv straight
 * on the graph input): calibrated with ONNX Runtime, rewritten, then run. ONNX Runtime must turn every
 * quantised node into its integer kernel, outputs must stay close to the float network's, and nodes kept
 * float must stay float.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { calibrate } from '../runtime/quantised-model.js';
import { ort } from '../runtime/onnx-session.js';
import { DataType, OnnxBuilder } from './onnx-builder.js';
import { activationParams, calibrationTensors, decodeModel, quantiseModel, quantiseWeights, WEIGHT_LEVELS, withOutputs, type QuantiseOptions } from './qdq-quantiser.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-qdq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic pseudo-random numbers in [-1, 1). */
function noise(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/** x [1,3,16,16] → conv3x3(8) → Clip(0,6) → conv1x1(8) → + skip(conv1x1 of the clip) → conv1x1(4) → y. */
function tinyNetwork(): Uint8Array {
  const b = new OnnxBuilder();
  b.input('x', 'float32', [1, 3, 16, 16]);
  const w = (hint: string, dims: number[], seed: number, scale: number) => b.constant(hint, 'float32', dims, noise(dims.reduce((a, c) => a * c), seed).map((v) => v * scale));
  const zero = b.constant('zero', 'float32', [], [0]);
  const six = b.constant('six', 'float32', [], [6]);
  const c1 = b.op('Conv', ['x', w('w1', [8, 3, 3, 3], 1, 0.5), w('b1', [8], 2, 0.1)], { pads: [1, 1, 1, 1] }, 'first');
  const a1 = b.op('Clip', [c1, zero, six]);
  const c2 = b.op('Conv', [a1, w('w2', [8, 8, 1, 1], 3, 0.4), w('b2', [8], 4, 0.1)], {}, 'project');
  const skip = b.op('Conv', [a1, w('w3', [8, 8, 1, 1], 5, 0.3)], {}, 'skip');
  const sum = b.op('Add', [c2, skip]);
  b.node('Conv', [sum, w('w4', [4, 8, 1, 1], 6, 0.5), w('b4', [4], 7, 0.1)], {}, ['y'], 'last');
  b.output('y', 'float32');
  return b.encode('tiny', 'qdq test network');
}

function inputs(count: number, seed: number): InstanceType<typeof ort.Tensor>[] {
  return Array.from({ length: count }, (_, k) => new ort.Tensor('float32', Float32Array.from(noise(3 * 16 * 16, seed + k)), [1, 3, 16, 16]));
}

async function quantised(options: QuantiseOptions = {}): Promise<Uint8Array> {
  const model = decodeModel(tinyNetwork());
  const tensors = calibrationTensors(model, options);
  const ranges = await calibrate(withOutputs(model, tensors), tensors, inputs(16, 100));
  return quantiseModel(model, ranges, options);
}

async function run(bytes: Uint8Array, x: InstanceType<typeof ort.Tensor>): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
  return (await session.run({ x }))['y']!.data as Float32Array;
}

/** Op types of the graph ONNX Runtime actually runs. */
async function optimisedOps(bytes: Uint8Array): Promise<string[]> {
  const file = path.join(dir, `opt-${Math.random().toString(36).slice(2)}.onnx`);
  await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'extended', optimizedModelFilePath: file, intraOpNumThreads: 1 });
  if (process.env.QDQ_DEBUG) console.log(decodeModel(readFileSync(file)).graph!.node!.map((n) => `${n.opType} ${n.input} -> ${n.output}`).join("\n"));
  return decodeModel(readFileSync(file)).graph!.node!.map((n) => n.opType!);
}

describe('QDQ quantiser', () => {
  it('names the activations to calibrate, the Clip after a Conv standing for its output', () => {
    const tensors = calibrationTensors(decodeModel(tinyNetwork()));
    expect(tensors).toContain('x');
    expect(tensors).toContain('y');
    expect(tensors.some((t) => t.startsWith('Clip'))).toBe(true);
    expect(tensors.some((t) => t.startsWith('first'))).toBe(false);
  });

  it('runs as integer kernels and stays within 3 % of the float network on unseen inputs', async () => {
    const qbytes = await quantised();
    const ops = await optimisedOps(qbytes);
    expect(ops.filter((o) => o === 'QLinearConv')).toHaveLength(4);
    expect(ops).toContain('QLinearAdd');
    expect(ops).not.toContain('Conv');
    const weights = decodeModel(qbytes).graph!.initializer!.filter((t) => t.dataType === DataType.INT8 && t.dims!.length === 4);
    expect(weights).toHaveLength(4);
    for (const t of weights) expect(Math.max(...new Int8Array(t.rawData!.buffer, t.rawData!.byteOffset, t.rawData!.length).map(Math.abs))).toBeLessThanOrEqual(WEIGHT_LEVELS);
    for (const x of inputs(4, 900)) {
      const [f, q] = [await run(tinyNetwork(), x), await run(qbytes, x)];
      let err = 0;
      let norm = 0;
      for (let i = 0; i < f.length; i++) {
        err += (f[i]! - q[i]!) ** 2;
        norm += f[i]! ** 2;
      }
      expect(Math.sqrt(err / norm)).toBeLessThan(0.03);
    }
  });

  it('keeps the nodes it is told to keep float', async () => {
    const model = decodeModel(tinyNetwork());
    const last = model.graph!.node!.find((n) => n.output?.[0] === 'y')!.name!;
    const qbytes = await quantised({ keepFloat: [last] });
    const ops = await optimisedOps(qbytes);
    expect(ops.filter((o) => o === 'QLinearConv')).toHaveLength(3);
    expect(ops.filter((o) => o === 'Conv' || o === 'FusedConv')).toHaveLength(1);
    const q = decodeModel(qbytes);
    // The kept Conv still reads a float weight of the original.
    const kept = q.graph!.node!.find((n) => n.name === last)!;
    const weight = q.graph!.initializer!.find((t) => t.name === kept.input![1]);
    expect(weight?.dataType).toBe(DataType.FLOAT);
  });

  it('refuses to quantise without a range for every tensor, or to keep float a node that is not there', () => {
    expect(() => quantiseModel(decodeModel(tinyNetwork()), new Map())).toThrow(/no calibration range/);
    expect(() => calibrationTensors(decodeModel(tinyNetwork()), { keepFloat: ['no such node'] })).toThrow(/not in the graph: no such node/);
  });

  it('int8 weights: 7 bits, one scale per output channel, error at most half a step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 20 }), fc.float({ min: Math.fround(1e-4), max: 100, noNaN: true }), fc.integer(), (channels, per, scale, seed) => {
        const values = Float32Array.from(noise(channels * per, seed), (v) => v * scale);
        const { q, scales } = quantiseWeights(values, channels);
        for (let i = 0; i < values.length; i++) {
          const s = scales[Math.floor(i / per)]!;
          expect(Math.abs(q[i]! * s - values[i]!)).toBeLessThanOrEqual(s / 2 + 1e-6 * Math.abs(values[i]!));
          // Two uint8 × weight products summed in int16 (VPMADDUBSW without VNNI) cannot saturate.
          expect(2 * 255 * Math.abs(q[i]!)).toBeLessThanOrEqual(32767);
        }
      }),
    );
  });

  it('uint8 activations: the range is covered and zero is exact', () => {
    fc.assert(
      fc.property(fc.float({ min: -1e4, max: 1e4, noNaN: true }), fc.float({ min: -1e4, max: 1e4, noNaN: true }), (a, b) => {
        const range = { min: Math.min(a, b), max: Math.max(a, b) };
        const { scale, zeroPoint } = activationParams(range);
        expect(scale).toBeGreaterThan(0);
        expect(Number.isInteger(zeroPoint) && zeroPoint >= 0 && zeroPoint <= 255).toBe(true);
        expect((0 - zeroPoint) * scale).toBeLessThanOrEqual(Math.min(0, range.min) + scale);
        expect((255 - zeroPoint) * scale).toBeGreaterThanOrEqual(Math.max(0, range.max) - scale);
      }),
    );
    expect(() => activationParams({ min: -Infinity, max: 1 })).toThrow(/not finite/);
  });
});
