/**
 * TFJS graph models of the model pack, converted to ONNX once and kept in a cache (`modelCacheDir()`,
 * never committed; any process rebuilds it). A cached file is used only when its name matches the
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

/** IRIS_MODEL_CACHE_DIR, else `<IRIS_CACHE_DIR>/models/onnx`, else `<IRIS_DATA_DIR>/models/onnx` (the folder of earlier versions). */
export function modelCacheDir(): string {
  const env = process.env;
  return env.IRIS_MODEL_CACHE_DIR ?? path.resolve(env.IRIS_CACHE_DIR ?? env.IRIS_DATA_DIR ?? '.iris', 'models', 'onnx');
}

function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Identity of a conversion: source bytes, options and converter version. */
export function conversionKey(spec: ConversionSpec): string {
  const hash = createHash('sha256').update(CONVERTER_VERSION).update(JSON.stringify([spec.outputs, spec.inputShape ?? null]));
  for (const file of modelFiles(spec.file)) hash.update(sha256(readFileSync(file)));
  return hash.digest('hex');
}

function writeDurably(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${randomBytes(8).toString('hex')}`;
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

/**
 * Where a model made from the TFJS model `source` is cached: named after the source, what was made of it
 * (`made`: '' for the conversion, e.g. '-int8') and the key of everything that made it.
 */
export function cachedModelFile(source: string, made: string, key: string): string {
  const base = path.basename(source).replace(/\.(min\.js|json)$/, '').replace(/[^\w.-]/g, '_');
  return path.join(modelCacheDir(), `${base}${made}-${key.slice(0, 24)}.onnx`);
}

/** A cached model's bytes when they match the SHA-256 written beside them; otherwise null (a stale sum is removed). */
export function readCachedModel(file: string): Uint8Array | null {
  const sumFile = `${file}.sha256`;
  if (!existsSync(file) || !existsSync(sumFile)) return null;
  const bytes = readFileSync(file);
  if (sha256(bytes) === readFileSync(sumFile, 'utf8').trim()) return bytes;
  rmSync(sumFile, { force: true });
  return null;
}

/** Writes a model into the cache, then its SHA-256 beside it (the sum marks it complete); both durably. */
export function writeCachedModel(file: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeDurably(file, bytes);
  writeDurably(`${file}.sha256`, `${sha256(bytes)}\n`);
}

/** The ONNX conversion of a TFJS graph model: from the cache when it is intact, converted otherwise. */
export function convertedModel(spec: ConversionSpec): ConvertedModel {
  const key = conversionKey(spec);
  const file = cachedModelFile(spec.file, '', key);
  const cached = readCachedModel(file);
  if (cached) return { file, bytes: cached, converted: false };
  const graph = readTfjsGraph(spec.file);
  const doc = `converted from ${path.basename(spec.file)} by ${CONVERTER_VERSION}; key ${key}`;
  const bytes = convertGraph(graph, { outputs: spec.outputs, inputShape: spec.inputShape ?? [null], doc });
  writeCachedModel(file, bytes);
  return { file, bytes, converted: true };
}

/** A session on the conversion of a TFJS graph model, created once per thread and conversion. */
export async function convertedSession(spec: ConversionSpec): Promise<InferenceSession> {
  const { onnxSession } = await import('./onnx-session.js');
  const key = `tfjs:${JSON.stringify([spec.file, spec.outputs, spec.inputShape ?? null])}`;
  return onnxSession(key, () => convertedModel(spec).bytes);
}
