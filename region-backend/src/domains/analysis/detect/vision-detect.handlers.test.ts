/** The vision detect services end to end through a real inference pool, real models and real photos. */
import type { RgbImage } from '../../../images/rgb-image.js';
import sharp from 'sharp';
import { FASHION_DETECT_LABELS, FURNITURE_LABELS, type Lang } from '@iris/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import type { AnalysisHandler } from '../analysis-registry.js';
import { bodiesHandler } from './bodies.handler.js';
import { facesHandler } from './faces.handler.js';
import { fashionHandler } from './fashion.handler.js';
import { furnitureHandler } from './furniture.handler.js';
import { peopleHandler } from './people.handler.js';
import { faceRow, sampleTile } from '../../../../test/support/sample-images.js';
import { detect, mapDetections, type DetectBoxItem } from './vision-calls.js';
import { mergeFaces } from './face-search.js';
import { COCO_TO_FURNITURE } from './furniture.handler.js';
import { labelIndex } from '@iris/shared';

const pool = new InferencePool(1);
afterAll(() => pool.close());

async function boxes(handler: AnalysisHandler<'detect'>, rgb: RgbImage, lang: Lang = 'en'): Promise<DetectBoxItem[]> {
  const result = await handler.run({ pool }, { rgb, encoded: new Uint8Array(), params: {}, lang });
  const items = result.boxes_detected as DetectBoxItem[];
  for (const item of items) {
    const [x, y, w, h] = item.box;
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(x + w).toBeLessThanOrEqual(1.0001);
    expect(y + h).toBeLessThanOrEqual(1.0001);
    expect(item.score).toBeGreaterThan(0);
    expect(item.score).toBeLessThanOrEqual(1);
  }
  return items;
}

describe('vision detect services', () => {
  it('_0000049 finds the five faces of a row of portraits, one box per face, labelled per language', async () => {
    const row = await faceRow();
    const faces = await boxes(facesHandler, row, 'zh');
    expect(faces).toHaveLength(5);
    expect(new Set(faces.map((f) => f.type))).toEqual(new Set(['人脸']));
    expect(faces.every((f) => f.puid === 'face.face' && f.score > 0.8)).toBe(true);
    // The five portraits are side by side: one face centre in each fifth of the strip.
    const fifths = faces.map((f) => Math.floor((f.box[0] + f.box[2] / 2) * 5)).sort();
    expect(fifths).toEqual([0, 1, 2, 3, 4]);
    expect(facesHandler.minSide).toBe(16);
  });

  it('_0000049 searches large pictures in quarters too, finding faces too small at whole-picture scale', async () => {
    const row = await faceRow();
    const png = await sharp(row.data, { raw: { width: row.width, height: row.height, channels: 3 } }).png().toBuffer();
    const { data, info } = await sharp({ create: { width: 3200, height: 2000, channels: 3, background: '#6a7a5a' } })
      .composite([{ input: png, left: 1500, top: 900 }])
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const big: RgbImage = { data: new Uint8Array(data), width: info.width, height: info.height };
    expect(await detect({ pool }, { stage: 'face-detector', image: big })).toHaveLength(0);
    const faces = await boxes(facesHandler, big);
    expect(faces.length).toBeGreaterThanOrEqual(4);
    for (const f of faces) {
      expect(f.box[0] * 3200).toBeGreaterThanOrEqual(1490);
      expect((f.box[0] + f.box[2]) * 3200).toBeLessThanOrEqual(2310);
      expect(f.box[1] * 2000).toBeGreaterThanOrEqual(890);
    }
  });

  it('_0000187 labels each visible face with gender and age: one man and four women, all adults', async () => {
    const items = await boxes(peopleHandler, await faceRow());
    const types = items.map((i) => i.type);
    expect(types.filter((t) => t === 'male')).toHaveLength(1);
    expect(types.filter((t) => t === 'female')).toHaveLength(4);
    expect(types.filter((t) => t === 'adult')).toHaveLength(5);
    // The man is the leftmost portrait.
    const man = items.find((i) => i.type === 'male')!;
    expect(man.box[0]).toBeLessThan(0.2);
  });

  it('_0000059 finds the person in a full-body picture and nothing in a picture without people', async () => {
    const people = await boxes(bodiesHandler, await sampleTile(0));
    expect(people).toHaveLength(1);
    expect(people[0]!.type).toBe('person');
    expect(people[0]!.box[3]).toBeGreaterThan(0.7); // head to feet
    const empty = await boxes(bodiesHandler, { data: new Uint8Array(64 * 64 * 3).fill(200), width: 64, height: 64 });
    expect(empty).toEqual([]);
  });

  it('_0000171 and _0000173 answer only labels of their own lists', async () => {
    const tile = await sampleTile(2);
    const furniture = await boxes(furnitureHandler, tile);
    const furnitureTexts = new Set(FURNITURE_LABELS.map((l) => l.en));
    expect(furniture.every((f) => furnitureTexts.has(f.type))).toBe(true);
    const fashion = await boxes(fashionHandler, tile);
    const fashionTexts = new Set(FASHION_DETECT_LABELS.map((l) => l.en));
    expect(fashion.every((f) => fashionTexts.has(f.type))).toBe(true);
  });
});

describe('detector label mapping', () => {
  it('maps COCO classes onto furniture labels, passes through labels of the list and drops the rest', () => {
    const labels = labelIndex(FURNITURE_LABELS);
    const items = mapDetections(
      [
        { box: [0, 0, 0.5, 0.5], label: 'couch', score: 0.6 },
        { box: [0, 0, 0.5, 0.5], label: 'bathtub', score: 0.5 }, // an operator model's own label
        { box: [0, 0, 0.5, 0.5], label: 'tv', score: 0.9 }, // a TV is not a TV cabinet
        { box: [0, 0, 0.5, 0.5], label: 'chair', score: 0.1 }, // below the threshold
      ],
      labels,
      COCO_TO_FURNITURE,
      0.25,
      'zh',
    );
    expect(items.map((i) => [i.type, i.puid])).toEqual([['沙发', 'furniture.sofa'], ['浴缸', 'furniture.bathtub']]);
  });
});

describe('face merging across quarters', () => {
  it('adds quarter faces that overlap no whole-picture face, the best of overlapping quarter faces, and no cut halves', () => {
    const merged = mergeFaces(
      [{ box: [0.5, 0.5, 0.1, 0.1], label: 'face', score: 0.7 }],
      [
        { box: [0.1, 0.1, 0.1, 0.1], label: 'face', score: 0.8 },
        { box: [0.11, 0.1, 0.1, 0.1], label: 'face', score: 0.9 },
        { box: [0.5, 0.5, 0.05, 0.1], label: 'face', score: 0.95 }, // the left half of the whole-picture face
      ],
    );
    expect(merged.map((m) => m.score)).toEqual([0.7, 0.9]);
  });
});
