/**
 * An operator's ONNX image encoder plugs in as the search embedder by manifest alone (tiny encoders of the
 * three output layouts: test/support/tiny-encoder.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoJpeg } from '../../../test/support/test-images.js';
import { embedderIdentity, embedderOutputSchema, EmbedderConfigError, dimOfPipeline, refOf } from './embedder-identity.js';
import { EmbedderMismatchError, checkedIdentity, vectorsOfOutput } from './onnx-embedder.js';
import { embedForIndex, embedForQuery } from './search-embedding.js';
import { tinyEncoder, writeTinyEncoder } from '../../../test/support/tiny-encoder.js';
import { rerankPictures } from '../../../test/support/real-photos.js';
import { makeSearchQuery } from '../../images/query-edits.js';
import sharp from 'sharp';

let dir: string;

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

let photos: Buffer[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'iris-onnx-embedder-'));
  photos = [await photoJpeg(320, 240, 3), await photoJpeg(320, 240, 11)];
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ONNX image embedder by manifest', () => {
  it('indexes and queries with the model: its dimension, unit vectors, a picture nearest to itself', async () => {
    const identity = await embedderIdentity(writeTinyEncoder(dir, 'grid', 'vector', { dim: 48 }));
    expect(identity.id).toMatch(/^onnx-grid-48d-[0-9a-f]{16}$/);
    expect(dimOfPipeline(`${identity.id}/abc`)).toBe(48);
    const embedder = refOf(identity);
    const indexed = await Promise.all(photos.map((image) => embedForIndex({ image, scenario: 'general', embedder })));
    for (const e of indexed) {
      expect(e.vector).toHaveLength(48);
      expect(norm(e.vector)).toBeCloseTo(1, 5);
    }
    const query = await embedForQuery({ image: photos[1]!, scenario: 'general', embedder });
    expect(query.vectors[0]).toHaveLength(48);
    expect(cosine(query.vectors[0]!, indexed[1]!.vector)).toBeGreaterThan(cosine(query.vectors[0]!, indexed[0]!.vector));
    expect(cosine(query.vectors[0]!, indexed[1]!.vector)).toBeGreaterThan(0.98);
  });

  it('embeds a query with a text banner across it twice with the model: as sent and without the banner', async () => {
    const embedder = refOf(await embedderIdentity(writeTinyEncoder(dir, 'grid', 'vector', { dim: 48 })));
    const { source } = await rerankPictures();
    const raw = { raw: { width: source.width, height: source.height, channels: 3 as const } };
    const png = await sharp(Buffer.from(source.data), raw).png().toBuffer();
    const bannered = await makeSearchQuery({ png, width: source.width, height: source.height }, 'text', 'onnx');
    const query = await embedForQuery({ image: bannered, scenario: 'general', embedder });
    expect(query.vectors).toHaveLength(2);
    const [indexed] = await Promise.all([embedForIndex({ image: png, scenario: 'general', embedder })]);
    for (const v of query.vectors) expect(v).toHaveLength(48);
    // Without the banner the query is nearer its source.
    expect(cosine(query.vectors[1]!, indexed!.vector)).toBeGreaterThan(cosine(query.vectors[0]!, indexed!.vector));
  });

  it('reads ViT tokens (cls, mean) and pools feature maps (gem, gap, mac)', async () => {
    const tokens = refOf(await embedderIdentity(writeTinyEncoder(dir, 'tokens', 'tokens', { dim: 3, pooling: 'cls' })));
    const map = refOf(await embedderIdentity(writeTinyEncoder(dir, 'map', 'map', { dim: 3, pooling: 'gap' })));
    // The CLS token is the mean of the grid: the same direction as the map's average pooling.
    const [a, b] = await Promise.all([embedForIndex({ image: photos[0]!, embedder: tokens }), embedForIndex({ image: photos[0]!, embedder: map })]);
    expect(a.vector).toHaveLength(3);
    expect(cosine(a.vector, b.vector)).toBeGreaterThan(0.9999);

    const spec = embedderOutputSchema.parse({ type: 'embedding', dim: 2, pooling: 'mean' });
    // [1, 2 tokens, 2] → mean of the tokens.
    expect([...vectorsOfOutput({ data: Float32Array.from([1, 3, 3, 5]), dims: [1, 2, 2] }, spec)[0]!]).toEqual([2, 4]);
    // NCHW [1, 2, 1, 2] → channel maxima (mac) and means (gap).
    const mapOut = { data: Float32Array.from([1, 3, 2, 8]), dims: [1, 2, 1, 2] };
    expect([...vectorsOfOutput(mapOut, { ...spec, pooling: 'mac' })[0]!]).toEqual([3, 8]);
    expect([...vectorsOfOutput(mapOut, { ...spec, pooling: 'gap' })[0]!]).toEqual([2, 5]);
    expect(() => vectorsOfOutput(mapOut, { ...spec, pooling: 'cls' })).toThrow(/does not apply/);
    expect(() => vectorsOfOutput({ data: new Float32Array(3), dims: [1, 3] }, spec)).toThrow(/dim 2/);
  });

  it('refuses a model whose output does not have the stated dimension', async () => {
    const embedder = refOf(await embedderIdentity(writeTinyEncoder(dir, 'wrong-dim', 'vector', { dim: 64 })));
    await expect(embedForIndex({ image: photos[0]!, embedder })).rejects.toThrow(/48 values, the manifest says dim 64/);
  });

  it('a changed model file gives another id; a worker asked for the old id refuses to run the new file', async () => {
    const file = writeTinyEncoder(dir, 'swapped', 'vector', { dim: 48 });
    const before = await embedderIdentity(file);
    writeTinyEncoder(dir, 'swapped', 'vector', { dim: 48 }, 0.25);
    const after = await embedderIdentity(file);
    expect(after.id).not.toBe(before.id);
    await expect(checkedIdentity(refOf(before))).rejects.toBeInstanceOf(EmbedderMismatchError);
    await expect(embedForIndex({ image: photos[0]!, embedder: refOf(before) })).rejects.toThrow(/changed/);
    expect((await checkedIdentity(refOf(after))).id).toBe(after.id);
  });

  it('refuses manifests that are not ONNX embedders', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(path.join(dir, 'bad.onnx'), tinyEncoder('vector'));
    for (const output of [{ type: 'softmax' }, { type: 'embedding', dim: 1 }, { type: 'embedding', dim: 48, pooling: 'max' }]) {
      writeFileSync(file, JSON.stringify({ name: 'bad', runtime: 'onnx', file: 'bad.onnx', inputSize: [32, 32], output }));
      await expect(embedderIdentity(file)).rejects.toBeInstanceOf(EmbedderConfigError);
    }
    writeFileSync(file, JSON.stringify({ name: 'bad', runtime: 'onnx', file: 'missing.onnx', inputSize: [32, 32], output: { type: 'embedding', dim: 48 } }));
    await expect(embedderIdentity(file)).rejects.toThrow(/missing\.onnx/);
  });

  it('pipeline ids carry the dimension of any embedder id (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4096 }), fc.stringMatching(/^[0-9a-f]{16}$/), fc.string({ maxLength: 20 }), (dim, hash, views) => {
        expect(dimOfPipeline(`onnx-x-${dim}d-${hash}/${views}`)).toBe(dim);
      }),
    );
    expect(() => dimOfPipeline('onnx-unknown/abc')).toThrow(EmbedderConfigError);
  });
});
