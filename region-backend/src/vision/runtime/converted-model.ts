/**
 * TFJS graph models of the model pack, converted to ONNX once and kept in a cache under the data directory
 * (`$IRIS_DATA_DIR/models/onnx`, never committed). A cached file is used only when its name matches the
 * hash of the source files, the conversion options and the converter version, and its bytes match the
 * SHA-256 written beside it; otherwise it is converted again. Files are written to a temporary name,
 * fsynced and renamed, so concurrent threads or processes never read half a model.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, openSync, fsyncSync, closeSync, writeFileSync, readFileSync, renameSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { convertGraph } from '../convert/convert-graph.js';
import { modelFiles, readTfjsGraph } from '../convert/tfjs-artifacts.js';

/** Bumped whenever the converter's output for the same input changes. */
export const CONVERTER_VERSION = 'tfjs2onnx-1';

export interface ConversionSpec {
  /** TFJS `model.json` or nsfwjs `model.min.js`. */
  file: string;
  /** Nodes to cut the graph at (they become the ONNX outputs, with the same names). */
  outputs: string[];
  /** Placeholder shape override (null = free dimension); by default only the batch dimension is freed. */
  inputShape?: (number | null)[];
}

export function modelCacheDir(): string {
  return process.env.IRIS_MODEL_CACHE_DIR ?? path.resolve(process.env.IRIS_DATA_DIR ?? '.iris', 'models', 'onnx');
}

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Identity of a conversion: source bytes, options and converter version. */
export function conversionKey(spec: ConversionSpec): string {
  const hash = createHash('sha256').update(CONVERTER_VERSION).update(JSON.stringify([spec.outputs, spec.inputShape ?? null]));
  for (const file of modelFiles(spec.file)) hash.update(sha256(readFileSync(file)));
  return hash.digest('hex');
}

export function writeDurably(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

export interface ConvertedModel {
  file: string;
  bytes: Uint8Array;
  /** True when this call converted (false: read from the cache). */
  converted: boolean;
}

/** The ONNX conversion of a TFJS graph model: from the cache when it is intact, converted otherwise. */
export function convertedModel(spec: ConversionSpec): ConvertedModel {
  const dir = modelCacheDir();
  const key = conversionKey(spec);
  const base = path.basename(spec.file).replace(/\.(min\.js|json)$/, '').replace(/[^\w.-]/g, '_');
  const file = path.join(dir, `${base}-${key.slice(0, 24)}.onnx`);
  const sumFile = `${file}.sha256`;
  if (existsSync(file) && existsSync(sumFile)) {
    const bytes = readFileSync(file);
    if (sha256(bytes) === readFileSync(sumFile, 'utf8').trim()) return { file, bytes, converted: false };
    rmSync(sumFile, { force: true });
  }
  const graph = readTfjsGraph(spec.file);
  const doc = `converted from ${path.basename(spec.file)} by ${CONVERTER_VERSION}; key ${key}`;
  const bytes = convertGraph(graph, { outputs: spec.outputs, inputShape: spec.inputShape ?? [null], doc });
  mkdirSync(dir, { recursive: true });
  writeDurably(file, bytes);
  writeDurably(sumFile, `${sha256(bytes)}\n`);
  return { file, bytes, converted: true };
}

/** A session on the conversion of a TFJS graph model, created once per thread and conversion. */
export async function convertedSession(spec: ConversionSpec): Promise<InferenceSession> {
  const { onnxSession } = await import('./onnx-session.js');
  const key = `tfjs:${JSON.stringify([spec.file, spec.outputs, spec.inputShape ?? null])}`;
  return onnxSession(key, () => convertedModel(spec).bytes);
}
