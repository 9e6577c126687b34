/**
 * The `embed` inference task through a real InferencePool (worker threads, real model, shipped whitening file),
 * on real photos that ship inside an installed npm package (@vladmandic/human's assets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { InferencePool, InferenceTaskError } from '../inference-pool.js';
import { resolveModelFile } from '../../vision/runtime/model-config.js';
const packageFile = (pkg: string, relative: string) => resolveModelFile(`pkg:${pkg}/${relative}`, '.');
import { EMBEDDING_DIM } from '../../vision/embedding/embedding-info.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('embed task', () => {
  const pool = new InferencePool(1);
  const samples = packageFile('@vladmandic/human', 'assets/samples.jpg');
  let party: Buffer; // a crowd photo: the lower part of samples.jpg (1280 × 968)
  let diner: Buffer; // another photo: a man at a restaurant table, from the top strip
  let avatar: Buffer; // a rendered figure on black
  let partyVector: Float32Array;

  const run = (payload: Record<string, unknown>) => pool.run('embed', payload);

  beforeAll(async () => {
    party = await sharp(samples).extract({ left: 0, top: 190, width: 1280, height: 968 }).jpeg({ quality: 92 }).toBuffer();
    diner = await sharp(samples).extract({ left: 330, top: 0, width: 205, height: 160 }).resize(410).jpeg({ quality: 92 }).toBuffer();
    avatar = await sharp(packageFile('@vladmandic/human', 'assets/screenshot-vrm.jpg')).png().toBuffer();
    partyVector = (await run({ image: party })).vector;
  });
  afterAll(() => pool.close());

  it('returns a unit-length vector of EMBEDDING_DIM and the image size', async () => {
    const result = await run({ image: party });
    expect(result.vector).toBeInstanceOf(Float32Array);
    expect(result.vector.length).toBe(EMBEDDING_DIM);
    expect(Math.hypot(...result.vector)).toBeCloseTo(1, 5);
    expect([result.width, result.height]).toEqual([1280, 968]);
    // Deterministic: the same bytes give the same vector.
    expect(cosine(result.vector, partyVector)).toBeGreaterThan(0.9999);
  });

  it('puts a crop and a mirror of a photo nearer to it than other photos', async () => {
    const crop = await sharp(party).extract({ left: 300, top: 150, width: 800, height: 620 }).jpeg({ quality: 70 }).toBuffer();
    const mirror = await sharp(party).flop().resize(480).jpeg({ quality: 60 }).toBuffer();
    const others = await Promise.all([run({ image: diner }), run({ image: avatar })]);
    for (const edited of [crop, mirror]) {
      const v = (await run({ image: edited })).vector;
      const own = cosine(v, partyVector);
      for (const other of others) expect(own).toBeGreaterThan(cosine(v, other.vector) + 0.1);
    }
  });

  it('embeds only the loc region, reporting the whole image size', async () => {
    const loc = [0.25, 0.2, 0.5, 0.6];
    const region = await run({ image: party, loc });
    expect([region.width, region.height]).toEqual([1280, 968]);
    const cut = await sharp(party).extract({ left: 320, top: 193, width: 640, height: 581 }).png().toBuffer();
    const direct = await run({ image: cut });
    expect(cosine(region.vector, direct.vector)).toBeGreaterThan(0.97);
    expect(cosine(region.vector, partyVector)).toBeLessThan(0.97);
  });

  it('accepts decoded rgb pixels like encoded bytes', async () => {
    const { data, info } = await sharp(diner).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const fromRgb = await run({ rgb: { data: new Uint8Array(data), width: info.width, height: info.height } });
    const fromBytes = await run({ image: diner });
    expect(fromRgb.vector.length).toBe(EMBEDDING_DIM);
    expect(cosine(fromRgb.vector, fromBytes.vector)).toBeGreaterThan(0.999);
  });

  it('keeps every scenario in the same space', async () => {
    const general = await run({ image: party, scenario: 'general' });
    for (const scenario of ['fashion', 'fashion_v3', 'material']) {
      const v = (await run({ image: party, scenario })).vector;
      expect(v.length).toBe(EMBEDDING_DIM);
      expect(cosine(v, general.vector)).toBeGreaterThan(0.6);
    }
  });

  it('rejects bytes that are not an image, and bad input, with clear errors', async () => {
    const bad = run({ image: new TextEncoder().encode('<html>not an image</html>') });
    await expect(bad).rejects.toBeInstanceOf(InferenceTaskError);
    await expect(bad).rejects.toMatchObject({ name: 'ImageDecodeError', code: 'image_decode_failed', message: expect.stringMatching(/cannot decode image/) });
    const truncated = party.subarray(0, 2000);
    await expect(run({ image: truncated })).rejects.toMatchObject({ code: 'image_decode_failed' });
    await expect(run({ image: party, loc: [0.5, 0.5, 0, 0.2] })).rejects.toMatchObject({ code: 'invalid_embed_input', message: expect.stringMatching(/loc/) });
    await expect(run({})).rejects.toMatchObject({ code: 'invalid_embed_input' });
    await expect(run({ rgb: { data: new Uint8Array(10), width: 4, height: 4 } })).rejects.toMatchObject({ code: 'invalid_embed_input' });
  });
});
