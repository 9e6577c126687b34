/**
 * The int8 backbone against the float one, through the production embedder (views, GeM, whitening), on real
 * photographs the calibration never saw (runtime/calibration-images.ts leaves these two out): every vector
 * within the stated cosine of its float twin, and nearest-neighbour order over a small gallery unchanged.
 * The quantised model is made once into a fresh cache, then read back from it.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { readdirSync } from 'node:fs';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { humanAsset } from '../runtime/calibration-images.js';
import { INT8_BACKBONE_KEY } from '../runtime/backbone-precision.js';
import { quantisationKey, quantisedModel } from '../runtime/quantised-model.js';
import { DataType } from '../convert/onnx-builder.js';
import { decodeModel } from '../convert/qdq-quantiser.js';
import { EMBEDDING_OUTPUTS, INT8_KEEP_FLOAT, quantisedBackboneSpec } from './backbone.js';
import { temporaryModelCache } from '../../../test/support/temporary-model-cache.js';
import { builtinEmbedderId, type EmbedderRef } from './embedder-identity.js';
import { vectorOfViews } from './embedder.js';
import { EMBEDDING_DIM } from './embedding-info.js';
import { INDEX_VIEWS, QUERY_VIEWS } from './embedding-views.js';

/** Smallest cosine accepted between an image's int8 and float vectors (measured: min 0.979, mean 0.986). */
const MIN_COSINE = 0.95;
/**
 * Spearman correlation of a query's int8 and float rankings of the whole gallery: smallest and mean accepted
 * (measured: min 0.79, mean 0.95; only neighbours with close scores swap).
 */
const MIN_RANK_CORRELATION = 0.7;
const MEAN_RANK_CORRELATION = 0.9;

const cacheDir = temporaryModelCache('iris-int8-');

const ref = (precision: 'int8' | 'float'): EmbedderRef => ({ id: builtinEmbedderId(precision), manifestPath: null, dim: EMBEDDING_DIM });

async function rgb(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Eight photographs: the sample photos and the selected face of the face-match screenshot, the face-id portrait. */
async function gallery(): Promise<RgbImage[]> {
  const match = humanAsset('screenshot-facematch.jpg');
  const regions = [
    [0, 40, 160, 190],
    [180, 26, 90, 112],
    [302, 26, 88, 112],
    [396, 26, 92, 112],
    [498, 26, 100, 112],
    [1130, 150, 100, 100],
    [1680, 140, 100, 110],
  ] as const;
  return Promise.all([
    ...regions.map(([left, top, width, height]) => rgb(sharp(match).extract({ left, top, width, height }))),
    rgb(sharp(humanAsset('screenshot-faceid.jpg')).extract({ left: 14, top: 142, width: 139, height: 140 })),
  ]);
}

/** A shopper's copy: the middle 80 %, a little brighter, as a JPEG of quality 40. */
async function edited(picture: RgbImage): Promise<RgbImage> {
  const w = Math.round(picture.width * 0.8);
  const h = Math.round(picture.height * 0.8);
  const raw = { raw: { width: picture.width, height: picture.height, channels: 3 as const } };
  const jpeg = await sharp(Buffer.from(picture.data), raw)
    .extract({ left: (picture.width - w) >> 1, top: (picture.height - h) >> 1, width: w, height: h })
    .linear(1.1, 0)
    .jpeg({ quality: 40 })
    .toBuffer();
  return rgb(sharp(jpeg));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Spearman's rank correlation of two orderings of the same items. */
function spearman(a: number[], b: number[]): number {
  const n = a.length;
  const pos = new Map(b.map((item, r) => [item, r]));
  const d2 = a.reduce((s, item, r) => s + (r - pos.get(item)!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
const ranking = (query: Float32Array, items: Float32Array[]) => items.map((v, i) => [dot(query, v), i] as const).sort((a, b) => b[0] - a[0]).map(([, i]) => i);

describe('int8 backbone', () => {
  it('is made once into the model cache (callers at the same time wait for it), then read back', async () => {
    const spec = quantisedBackboneSpec([...EMBEDDING_OUTPUTS]);
    const both = await Promise.all([quantisedModel(spec), quantisedModel(spec)]);
    expect(both.map((m) => m.quantised).sort()).toEqual([false, true]);
    const first = both.find((m) => m.quantised)!;
    expect(Buffer.compare(Buffer.from(both[0]!.bytes), Buffer.from(both[1]!.bytes))).toBe(0);
    expect(readdirSync(cacheDir()).filter((f) => f.endsWith('.lock'))).toEqual([]);
    expect(first.file.startsWith(cacheDir())).toBe(true);
    // The convolutions meant to stay float are there, reading float weights; every other one is quantised.
    const graph = decodeModel(first.bytes).graph!;
    const weights = new Map(graph.initializer!.map((t) => [t.name, t.dataType]));
    const convs = graph.node!.filter((n) => n.opType === 'Conv');
    expect(convs.filter((n) => weights.get(n.input![1]!) === DataType.FLOAT).map((n) => n.name).sort()).toEqual([...INT8_KEEP_FLOAT].sort());
    expect(convs.length).toBe(52);
    const again = await quantisedModel(spec);
    // A new model needs a new embedder id (INT8_BACKBONE_TAG): the key it stands for is recorded beside it.
    expect((await quantisationKey(spec)).slice(0, 16), 'the int8 backbone changed: bump INT8_BACKBONE_TAG and INT8_BACKBONE_KEY').toBe(INT8_BACKBONE_KEY);
    expect(again.quantised).toBe(false);
    expect(Buffer.compare(Buffer.from(again.bytes), Buffer.from(first.bytes))).toBe(0);
  }, 120_000);

  it(`gives vectors within cosine ${MIN_COSINE} of the float backbone's and the same nearest neighbours`, async () => {
    const pictures = await gallery();
    const queries = await Promise.all(pictures.map(edited));
    const indexed = { float: [] as Float32Array[], int8: [] as Float32Array[] };
    const asked = { float: [] as Float32Array[], int8: [] as Float32Array[] };
    for (const precision of ['float', 'int8'] as const) {
      for (const p of pictures) indexed[precision].push(await vectorOfViews(p, INDEX_VIEWS, ref(precision)));
      for (const q of queries) asked[precision].push(await vectorOfViews(q, QUERY_VIEWS, ref(precision)));
    }
    const cosines = [...pictures.keys()].flatMap((i) => [dot(indexed.float[i]!, indexed.int8[i]!), dot(asked.float[i]!, asked.int8[i]!)]);
    for (const c of cosines) expect(c).toBeGreaterThanOrEqual(MIN_COSINE);
    // Each query finds its own picture first under both; the rest of the ranking (unrelated pictures, close
    // scores) may swap neighbours but keeps its order overall.
    const agreement: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const fr = ranking(asked.float[i]!, indexed.float);
      const qr = ranking(asked.int8[i]!, indexed.int8);
      expect(fr[0]).toBe(i);
      expect(qr[0]).toBe(i);
      agreement.push(spearman(fr, qr));
    }
    for (let i = 0; i < pictures.length; i++) agreement.push(spearman(ranking(indexed.float[i]!, indexed.float), ranking(indexed.int8[i]!, indexed.int8)));
    console.log(`int8 vs float: cosine min ${Math.min(...cosines).toFixed(4)}, mean ${mean(cosines).toFixed(4)}; rank correlation min ${Math.min(...agreement).toFixed(3)}, mean ${mean(agreement).toFixed(3)}`);
    expect(Math.min(...agreement)).toBeGreaterThanOrEqual(MIN_RANK_CORRELATION);
    expect(mean(agreement)).toBeGreaterThanOrEqual(MEAN_RANK_CORRELATION);
  }, 180_000);
});
