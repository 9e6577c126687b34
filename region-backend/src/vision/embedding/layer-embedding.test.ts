import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { EMBEDDING_OUTPUTS, layerMaps } from './backbone.js';
import { pooledDescriptor, vectorOfViews, viewDescriptor } from './embedder.js';
import { EMBEDDING_DIM, EMBEDDING_PIPELINE } from './embedding-info.js';
import { renderView } from './image-views.js';
import { QUERY_VIEWS } from './embedding-views.js';
import { rerankPictures, rgbOf } from '../../../test/support/real-photos.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('embedding from several blocks of the backbone', () => {
  it('pools the last map and the mid-level blocks of a real photo, each weighing the same', async () => {
    const { source } = await rerankPictures();
    const [maps] = await layerMaps([await renderView(source, QUERY_VIEWS[0]!)]);
    expect(maps!.map((m) => m.channels)).toEqual([1792, 136, 224]);
    expect(EMBEDDING_PIPELINE.layers).toHaveLength(EMBEDDING_OUTPUTS.length);
    // Stride 32 for the last map, 16 for the blocks.
    expect(maps![1]!.width).toBe(maps![0]!.width * 2);
    const d = viewDescriptor(maps!);
    expect(d.length).toBe(1792 + 136 + 224);
    expect(Math.hypot(...d)).toBeCloseTo(1, 5);
    const parts = [d.subarray(0, 1792), d.subarray(1792, 1928), d.subarray(1928)];
    for (const part of parts) expect(Math.hypot(...part)).toBeCloseTo(1 / Math.sqrt(3), 4);
    expect(Array.from(await pooledDescriptor(source))).toEqual(Array.from(d));
  });

  it('keeps a re-encoded crop of a photo nearer to it than another photo', async () => {
    const { source, other } = await rerankPictures();
    const crop = await rgbOf(
      sharp(await sharp(Buffer.from(source.data), { raw: { width: source.width, height: source.height, channels: 3 } }).extract({ left: 60, top: 40, width: 420, height: 340 }).jpeg({ quality: 60 }).toBuffer()),
    );
    const [a, b, c] = await Promise.all([source, crop, other].map((img) => vectorOfViews(img, QUERY_VIEWS)));
    expect(a!.length).toBe(EMBEDDING_DIM);
    expect(dot(a!, b!)).toBeGreaterThan(0.6);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.2);
  });
});
