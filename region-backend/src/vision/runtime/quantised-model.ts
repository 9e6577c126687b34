/**
 * The int8 (QDQ) version of a converted model, made once and kept beside the conversions in the model cache
 * (never committed). Steps: ONNX Runtime's basic graph optimisations on the float conversion (constant
 * folding, the cancelling NHWC/NCHW transposes removed), a calibration run of the float graph with every
 * tensor the quantiser needs exposed as an output (minimum and maximum over the calibration inputs), then
 * the QDQ rewrite (convert/qdq-quantiser.ts). The cached file's name carries the hash of the conversion,
 * the calibration set, the quantiser version and the ONNX Runtime version; its bytes are checked against the
 * SHA-256 written beside it. The same inputs give the same bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
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
  const tmp = path.join(dir, `.optimised-${randomBytes(8).toString('hex')}.onnx`);
  try {
    const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'basic', optimizedModelFilePath: tmp, intraOpNumThreads: 1 });
    await session.release();
    return readFileSync(tmp);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Minimum and maximum of each named tensor over the calibration inputs; `stop` is checked before each run. */
export async function calibrate(modelBytes: Uint8Array, tensors: string[], inputs: Tensor[], stop?: AbortSignal): Promise<Map<string, TensorRange>> {
  const { ort, sessionOptions } = await import('./onnx-session.js');
  const session = await ort.InferenceSession.create(modelBytes, { ...sessionOptions(), graphOptimizationLevel: 'disabled' });
  const ranges = new Map<string, TensorRange>(tensors.map((t) => [t, { min: Infinity, max: -Infinity }]));
  try {
    for (const input of inputs) {
      stop?.throwIfAborted();
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

/** Models being made in this thread, by file: callers at the same time wait for the one making. */
const making = new Map<string, Promise<Uint8Array>>();

/**
 * The quantised model: from the cache when intact, made now otherwise. Callers of one thread at the same time
 * make it once. Processes sharing the cache are kept from making it side by side by the backend's model-cache
 * lock (plugins/model-cache.plugin.ts, in PostgreSQL) around its preparation at start; should two make it all
 * the same, both write the same bytes, each through a temporary file renamed into place.
 * `stop` (the thread's, given by a caller that may be abandoned, such as the start-up preparation): checked
 * between the quantisation's steps; other callers waiting for the same file then see the same rejection.
 */
export async function quantisedModel(spec: QuantisationSpec, stop?: AbortSignal): Promise<QuantisedModel> {
  const file = cachedModelFile(spec.conversion.file, '-int8', await quantisationKey(spec));
  const hit = readCachedModel(file);
  if (hit) return { file, bytes: hit, quantised: false };
  const inFlight = making.get(file);
  if (inFlight) return { file, bytes: await inFlight, quantised: false };
  const made = (async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const bytes = await quantiseNow(spec, path.dirname(file), stop);
    writeCachedModel(file, bytes);
    return bytes;
  })();
  making.set(file, made);
  try {
    return { file, bytes: await made, quantised: true };
  } finally {
    making.delete(file);
  }
}

async function quantiseNow(spec: QuantisationSpec, dir: string, stop: AbortSignal | undefined): Promise<Uint8Array> {
  const float = decodeModel(await optimisedFloat(convertedModel(spec.conversion).bytes, dir));
  stop?.throwIfAborted();
  // Nodes to keep float that a cut leaves out are simply not there.
  const present = new Set(float.graph!.node!.map((n) => n.name));
  const options: QuantiseOptions = { keepFloat: (spec.keepFloat ?? []).filter((name) => present.has(name)) };
  const tensors = calibrationTensors(float, options);
  const ranges = await calibrate(withOutputs(float, tensors), tensors, await spec.calibration.inputs(), stop);
  stop?.throwIfAborted();
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
