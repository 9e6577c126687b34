/**
 * The int8 (QDQ) version of a converted model, made once and kept beside the conversions in the model cache
 * (never committed). Steps: ONNX Runtime's basic graph optimisations on the float conversion (constant
 * folding, the cancelling NHWC/NCHW transposes removed), a calibration run of the float graph with every
 * tensor the quantiser needs exposed as an output (minimum and maximum over the calibration inputs), then
 * the QDQ rewrite (convert/qdq-quantiser.ts). The cached file's name carries the hash of the conversion,
 * the calibration set, the quantiser version and the ONNX Runtime version; its bytes are checked against the
 * SHA-256 written beside it. The same inputs give the same bytes.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { calibrationTensors, decodeModel, quantiseModel, withOutputs, type QuantiseOptions, type TensorRange } from '../convert/qdq-quantiser.js';
import { cachedModelFile, conversionKey, convertedModel, readCachedModel, writeCachedModel, type ConversionSpec } from './converted-model.js';

/** Bumped whenever the quantiser's output for the same inputs changes. */
export const QUANTISER_VERSION = 'qdq-3';

export interface CalibrationSet {
  /** Identity of the inputs (hash of their sources). */
  key: string;
  /** The inputs of the model's (single) input, one tensor per calibration run. */
  inputs(): Promise<Tensor[]>;
}

export interface QuantisationSpec {
  conversion: ConversionSpec;
  calibration: CalibrationSet;
  /** Names of nodes (in the optimised float graph) to keep float; those the cut leaves out are ignored. */
  keepFloat?: string[];
}

export interface QuantisedModel {
  file: string;
  bytes: Uint8Array;
  /** True when this call quantised (false: read from the cache). */
  quantised: boolean;
}

async function ortVersion(): Promise<string> {
  const { ort } = await import('./onnx-session.js');
  return ort.env.versions.common ?? 'unknown';
}

export async function quantisationKey(spec: QuantisationSpec): Promise<string> {
  return createHash('sha256')
    .update(JSON.stringify([QUANTISER_VERSION, await ortVersion(), conversionKey(spec.conversion), spec.calibration.key, spec.keepFloat ?? []]))
    .digest('hex');
}

/** The float conversion after ONNX Runtime's basic (standard-op) optimisations. */
async function optimisedFloat(bytes: Uint8Array, dir: string): Promise<Uint8Array> {
  const { ort } = await import('./onnx-session.js');
  const tmp = path.join(dir, `.optimised-${process.pid}-${Math.random().toString(36).slice(2)}.onnx`);
  try {
    const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'basic', optimizedModelFilePath: tmp, intraOpNumThreads: 1 });
    await session.release();
    return readFileSync(tmp);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Minimum and maximum of each named tensor over the calibration inputs. */
export async function calibrate(modelBytes: Uint8Array, tensors: string[], inputs: Tensor[]): Promise<Map<string, TensorRange>> {
  const { ort, sessionOptions } = await import('./onnx-session.js');
  const session = await ort.InferenceSession.create(modelBytes, { ...sessionOptions(), graphOptimizationLevel: 'disabled' });
  const ranges = new Map<string, TensorRange>(tensors.map((t) => [t, { min: Infinity, max: -Infinity }]));
  try {
    for (const input of inputs) {
      const out = await session.run({ [session.inputNames[0]!]: input }, tensors);
      for (const name of tensors) {
        const data = out[name]!.data as Float32Array;
        const r = ranges.get(name)!;
        for (let i = 0; i < data.length; i++) {
          const v = data[i]!;
          if (v < r.min) r.min = v;
          if (v > r.max) r.max = v;
        }
      }
    }
  } finally {
    await session.release();
  }
  return ranges;
}

/** A lock held by whoever makes `file` now; older than this, it is taken as left by a killed process. */
const LOCK_STALE_MS = 5 * 60_000;

function holderAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return true; // still being written: give it time
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `file`, or waits until its holder has written it (then answers its bytes). */
async function lockOrWait(file: string): Promise<{ release: () => void } | { bytes: Uint8Array }> {
  const lock = `${file}.lock`;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(lock, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    const bytes = readCachedModel(file);
    if (bytes) return { bytes };
    try {
      if (!holderAlive(Number(readFileSync(lock, 'utf8'))) || Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
    } catch {
      // The holder just released it: try again.
    }
  }
}

/**
 * The quantised model: from the cache when intact, made now otherwise. Threads and processes sharing the
 * cache make it once: the others wait for the file (a lock file beside it says who is making it).
 */
export async function quantisedModel(spec: QuantisationSpec): Promise<QuantisedModel> {
  const file = cachedModelFile(spec.conversion.file, '-int8', await quantisationKey(spec));
  const hit = readCachedModel(file);
  if (hit) return { file, bytes: hit, quantised: false };
  mkdirSync(path.dirname(file), { recursive: true });
  const lock = await lockOrWait(file);
  if ('bytes' in lock) return { file, bytes: lock.bytes, quantised: false };
  try {
    const again = readCachedModel(file);
    if (again) return { file, bytes: again, quantised: false };
    const bytes = await quantiseNow(spec, path.dirname(file));
    writeCachedModel(file, bytes);
    return { file, bytes, quantised: true };
  } finally {
    lock.release();
  }
}

async function quantiseNow(spec: QuantisationSpec, dir: string): Promise<Uint8Array> {
  const float = decodeModel(await optimisedFloat(convertedModel(spec.conversion).bytes, dir));
  // Nodes to keep float that a cut leaves out are simply not there.
  const present = new Set(float.graph!.node!.map((n) => n.name));
  const options: QuantiseOptions = { keepFloat: (spec.keepFloat ?? []).filter((name) => present.has(name)) };
  const tensors = calibrationTensors(float, options);
  const ranges = await calibrate(withOutputs(float, tensors), tensors, await spec.calibration.inputs());
  return quantiseModel(float, ranges, options);
}

const pending = new Map<string, Promise<InferenceSession>>();

/** A session on the quantised model, created once per thread and spec. */
export function quantisedSession(spec: QuantisationSpec): Promise<InferenceSession> {
  const id = `int8:${JSON.stringify([spec.conversion.file, spec.conversion.outputs, spec.conversion.inputShape ?? null, spec.calibration.key, spec.keepFloat ?? []])}`;
  let session = pending.get(id);
  if (!session) {
    session = (async () => {
      const { bytes } = await quantisedModel(spec);
      const { onnxSession } = await import('./onnx-session.js');
      return onnxSession(id, () => bytes);
    })();
    session.catch(() => pending.delete(id));
    pending.set(id, session);
  }
  return session;
}
