/**
 * Reads a TFJS graph model from disk without TensorFlow.js: `model.json` + weight shards, or an nsfwjs UMD
 * bundle (`model.min.js` + `group1-shardNofM.min.js`, each holding base64). Weights come back as plain
 * typed arrays, quantised weights (uint8 / uint16 with min + scale, float16) already expanded to float32.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);

export interface TfAttrValue {
  s?: string;
  i?: string | number;
  f?: number;
  b?: boolean;
  type?: string;
  shape?: { dim?: { size: string | number }[]; unknownRank?: boolean };
  list?: { s?: string[]; i?: (string | number)[]; f?: number[]; type?: string[] };
  tensor?: unknown;
}

export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttrValue>;
}

export type TfDtype = 'float32' | 'int32' | 'bool';

export interface TfWeight {
  dtype: TfDtype;
  shape: number[];
  data: Float32Array | Int32Array | Uint8Array;
}

export interface TfGraph {
  nodes: TfNode[];
  weights: Map<string, TfWeight>;
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: 'uint8' | 'uint16' | 'float16'; min?: number; scale?: number };
}

interface ModelJson {
  modelTopology: { node?: TfNode[] };
  weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
}

function float16ToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Expands the concatenated weight bytes into one typed array per weight, in manifest order. */
export function decodeWeights(specs: WeightSpec[], bytes: Buffer): Map<string, TfWeight> {
  const out = new Map<string, TfWeight>();
  let offset = 0;
  for (const spec of specs) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const dtype: TfDtype = spec.dtype === 'int32' ? 'int32' : spec.dtype === 'bool' ? 'bool' : 'float32';
    if (spec.dtype !== 'float32' && spec.dtype !== 'int32' && spec.dtype !== 'bool') {
      throw new Error(`weight ${spec.name}: dtype ${spec.dtype} is not supported`);
    }
    const q = spec.quantization;
    let data: Float32Array | Int32Array | Uint8Array;
    if (q) {
      const width = q.dtype === 'uint8' ? 1 : 2;
      const raw = bytes.subarray(offset, offset + count * width);
      offset += count * width;
      const values = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        const v = width === 1 ? raw[i]! : raw.readUInt16LE(i * 2);
        values[i] = q.dtype === 'float16' ? float16ToFloat32(v) : v * q.scale! + q.min!;
      }
      data = dtype === 'int32' ? Int32Array.from(values, Math.round) : values;
    } else {
      const width = dtype === 'bool' ? 1 : 4;
      const raw = bytes.subarray(offset, offset + count * width);
      offset += count * width;
      const copy = new Uint8Array(raw);
      data = dtype === 'float32' ? new Float32Array(copy.buffer) : dtype === 'int32' ? new Int32Array(copy.buffer) : copy;
    }
    if (offset > bytes.length) throw new Error(`weight ${spec.name}: weight data is shorter than the manifest says`);
    out.set(spec.name, { dtype, shape: spec.shape, data });
  }
  return out;
}

function loadBundle(file: string): unknown {
  const loaded: unknown = require(file);
  return loaded && typeof loaded === 'object' && 'default' in loaded ? (loaded as { default: unknown }).default : loaded;
}

/** The files a model consists of (for hashing): the model file and its weight shards. */
export function modelFiles(file: string): string[] {
  const bundle = file.endsWith('.min.js');
  const json = (bundle ? loadBundle(file) : JSON.parse(readFileSync(file, 'utf8'))) as ModelJson;
  const dir = path.dirname(file);
  return [file, ...json.weightsManifest.flatMap((g) => g.paths.map((p) => path.join(dir, bundle ? `${p}.min.js` : p)))];
}

/** Reads a TFJS graph model (`model.json` or an nsfwjs `model.min.js` bundle). */
export function readTfjsGraph(file: string): TfGraph {
  const bundle = file.endsWith('.min.js');
  const json = (bundle ? loadBundle(file) : JSON.parse(readFileSync(file, 'utf8'))) as ModelJson;
  if (!Array.isArray(json?.modelTopology?.node) || !Array.isArray(json.weightsManifest)) {
    throw new Error(`${file} is not a TFJS graph model`);
  }
  const dir = path.dirname(file);
  const specs: WeightSpec[] = [];
  const buffers: Buffer[] = [];
  for (const group of json.weightsManifest) {
    specs.push(...group.weights);
    for (const shard of group.paths) {
      if (bundle) {
        const base64 = loadBundle(path.join(dir, `${shard}.min.js`));
        if (typeof base64 !== 'string') throw new Error(`${shard}.min.js in ${dir} does not hold a weight shard`);
        buffers.push(Buffer.from(base64, 'base64'));
      } else {
        buffers.push(readFileSync(path.join(dir, shard)));
      }
    }
  }
  return { nodes: json.modelTopology.node, weights: decodeWeights(specs, Buffer.concat(buffers)) };
}

/** The graph's sink nodes (not read by any other node): its outputs when a manifest names none. */
export function tfjsGraphOutputs(file: string): string[] {
  const { nodes } = readTfjsGraph(file);
  const read = new Set(nodes.flatMap((n) => (n.input ?? []).map((i) => i.replace(/^\^/, '').split(':')[0]!)));
  return nodes.filter((n) => n.op !== 'Const' && !read.has(n.name)).map((n) => n.name);
}
