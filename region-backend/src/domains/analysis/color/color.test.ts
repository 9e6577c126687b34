import type { RgbImage } from '../../../images/rgb-image.js';
import { ApiError } from '@iris/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../../inference/inference-pool.js';
import type { AnalysisInput } from '../analysis-registry.js';
import { clusterColors } from '../../../vision/color/color-clustering.js';
import { parseColorParams } from './color-params.js';
import { ciede2000, hexToLab, labToRgb, rgbToLab } from '../../../vision/color/color-space.js';
import { COLOR_HANDLERS, colorEverythingHandler, colorForegroundHandler, colorOutfitHandler } from './color.handlers.js';
import { borderBackgroundForeground } from '../../../vision/color/foreground-mask.js';
import { cncsNotation } from '../../../vision/color/cncs-notation.js';
import { ncsNotation } from '../../../vision/color/ncs-notation.js';
import { createRequire } from 'node:module';

function image(width: number, height: number, paint: (x: number, y: number) => readonly [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(paint(x, y), (y * width + x) * 3);
  return { data, width, height };
}

const RED = [200, 30, 40] as const;
const BLUE = [20, 60, 200] as const;
const WHITE = [245, 245, 245] as const;
const YELLOW = [250, 210, 20] as const;

/** 60 % red, 25 % blue, 15 % yellow. */
const blocks = image(400, 300, (x) => (x < 240 ? RED : x < 340 ? BLUE : YELLOW));

function input(rgb: RgbImage, params: Record<string, string>, lang: 'en' | 'zh' = 'en'): AnalysisInput {
  return { rgb, encoded: new Uint8Array(0), params, lang };
}

describe('colour parameters', () => {
  it('accepts every granularity and return_type', () => {
    expect(parseColorParams({ granularity: 'major', return_type: 'w3c' })).toEqual({ granularity: 'major', returnType: 'w3c' });
    expect(parseColorParams({ granularity: ' Detailed ', return_type: 'CNCS' })).toEqual({ granularity: 'detailed', returnType: 'cncs' });
  });

  it.each([
    [{ return_type: 'basic' }, /granularity is required/],
    [{ granularity: 'all', return_type: 'basic' }, /invalid granularity/],
    [{ granularity: 'major' }, /return_type is required/],
    [{ granularity: 'major', return_type: 'pantone' }, /invalid return_type/],
  ])('rejects %j with 400', (params, message) => {
    for (const handler of COLOR_HANDLERS) {
      let error: unknown;
      try {
        handler.validate!(params as Record<string, string>);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).code).toBe(400);
      expect((error as ApiError).message).toMatch(message);
    }
  });
});

describe('colour science', () => {
  it('round-trips sRGB through CIELAB', () => {
    const colors: [number, number, number][] = [[0, 0, 0], [255, 255, 255], [200, 30, 40], [12, 200, 99]];
    for (const rgb of colors) expect(labToRgb(...rgbToLab(...rgb))).toEqual(rgb);
  });

  it('matches the CIEDE2000 reference pairs of Sharma et al.', () => {
    expect(ciede2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
    expect(ciede2000([50, -1.3802, -84.2814], [50, 0, -82.7485])).toBeCloseTo(1.0, 4);
    expect(ciede2000([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387])).toBeCloseTo(1.2644, 4);
  });

  it('clusters deterministically and merges shades closer than the threshold', () => {
    const labs: number[] = [];
    for (let i = 0; i < 300; i++) labs.push(...rgbToLab(200 + (i % 3), 30, 40), ...rgbToLab(20, 60, 200 + (i % 2)));
    const samples = Float32Array.from(labs);
    const weights = new Float32Array(600).fill(1);
    const a = clusterColors(samples, weights, { k: 8, mergeDeltaE: 7 });
    const b = clusterColors(samples, weights, { k: 8, mergeDeltaE: 7 });
    expect(a).toEqual(b);
    expect(a).toHaveLength(2);
    expect(a[0]!.weight + a[1]!.weight).toBeCloseTo(1, 9);
  });
});

describe('NCS and CNCS notations', () => {
  it('finds the notation of a colour made by the NCS formula', () => {
    const ncsColor = createRequire(import.meta.url)('ncs-color') as { hex(n: string): string };
    for (const notation of ['S 2060-B', 'S 1080-Y90R', 'S 4020-G30Y', 'S 7000-N']) expect(ncsNotation(hexToLab(ncsColor.hex(`NCS ${notation}`)))).toBe(notation);
  });

  it('codes hue, lightness and chroma in seven digits, neutrals with hue 000', () => {
    const grey = cncsNotation(rgbToLab(128, 128, 128), 'en');
    expect(grey).toEqual({ chroma: '00', cncs: `000${grey.lightness}00`, color: 'Medium Gray', lightness: '54', rgb: ['129', '129', '129'] });
    // rgb is the centre of the code's cell (L* 54), not the input (L* 53.6).
    const red = cncsNotation(rgbToLab(200, 30, 40), 'zh');
    expect(red.cncs).toMatch(/^0\d{2}4375$/);
  });
});

describe('colour services', () => {
  const pool = new InferencePool(2);
  afterAll(() => pool.close());
  const ctx = { pool };

  it('answers the main colours with shares summing to 1, deterministically', async () => {
    const first = await colorEverythingHandler.run(ctx, input(blocks, { granularity: 'detailed', return_type: 'basic' }));
    const second = await colorEverythingHandler.run(ctx, input(blocks, { granularity: 'detailed', return_type: 'basic' }));
    expect(second).toEqual(first);
    const results = first.results as { freq: number; hex: string; rgb: number[]; basic: string }[];
    expect(results.map((r) => r.basic)).toEqual(['red', 'blue', 'yellow']);
    expect(results.map((r) => r.hex)).toEqual(['#c81e28', '#143cc8', '#fad214']);
    expect(results.map((r) => r.rgb)).toEqual([[...RED], [...BLUE], [...YELLOW]]);
    expect(results[0]!.freq).toBeCloseTo(0.6, 2);
    expect(results[1]!.freq).toBeCloseTo(0.25, 2);
    expect(results.reduce((s, r) => s + r.freq, 0)).toBeCloseTo(1, 9);
  });

  it('answers one colour for dominant and two for major, renormalised', async () => {
    const dominant = (await colorEverythingHandler.run(ctx, input(blocks, { granularity: 'dominant', return_type: 'w3c' }))).results as { freq: number; w3c: string }[];
    expect(dominant).toEqual([{ freq: 1, hex: '#c81e28', rgb: [...RED], w3c: 'firebrick' }]);
    const major = (await colorEverythingHandler.run(ctx, input(blocks, { granularity: 'major', return_type: 'w3c' }, 'zh'))).results as { freq: number; w3c: string }[];
    expect(major.map((r) => r.w3c)).toEqual(['耐火砖红', '蓝色']);
    expect(major[0]!.freq).toBeCloseTo(0.6 / 0.85, 2);
    expect(major[0]!.freq + major[1]!.freq).toBeCloseTo(1, 9);
  });

  it('has exactly the fields of each return_type', async () => {
    const run = async (returnType: string) =>
      ((await colorEverythingHandler.run(ctx, input(blocks, { granularity: 'major', return_type: returnType }, 'zh'))).results as Record<string, unknown>[])[0]!;
    for (const returnType of ['basic', 'w3c', 'ncs', 'cncs']) {
      const item = await run(returnType);
      expect(Object.keys(item).sort()).toEqual(['freq', 'hex', 'rgb', returnType].sort());
      expect(typeof item.freq).toBe('number');
      expect(item.hex).toMatch(/^#[0-9a-f]{6}$/);
      expect((item.rgb as unknown[]).every((v) => Number.isInteger(v))).toBe(true);
    }
    expect((await run('basic')).basic).toBe('红色');
    expect((await run('ncs')).ncs).toMatch(/^S \d{4}-(N|[YRBG](\d0[YRBG])?)$/);
    const cncs = (await run('cncs')).cncs as Record<string, unknown>;
    expect(Object.keys(cncs).sort()).toEqual(['chroma', 'cncs', 'color', 'lightness', 'rgb']);
    for (const key of ['chroma', 'cncs', 'color', 'lightness']) expect(typeof cncs[key]).toBe('string');
    expect(cncs.cncs).toMatch(/^\d{7}$/);
    expect(cncs.cncs).toBe(`${(cncs.cncs as string).slice(0, 3)}${cncs.lightness}${cncs.chroma}`);
    expect(cncs.rgb).toHaveLength(3);
    expect((cncs.rgb as unknown[]).every((v) => typeof v === 'string' && /^\d{1,3}$/.test(v))).toBe(true);
    expect(cncs.color).toBe('鲜红色');
  });

  it('foreground removes a uniform background', async () => {
    // A blue object (a rounded blob) on a white studio background.
    const product = image(320, 240, (x, y) => ((x - 160) ** 2 / 80 ** 2 + (y - 130) ** 2 / 70 ** 2 <= 1 ? BLUE : WHITE));
    const mask = borderBackgroundForeground(product)!;
    expect(mask).not.toBeNull();
    const everything = (await colorEverythingHandler.run(ctx, input(product, { granularity: 'dominant', return_type: 'basic' }))).results as { basic: string }[];
    expect(everything[0]!.basic).toBe('white');
    const foreground = (await colorForegroundHandler.run(ctx, input(product, { granularity: 'detailed', return_type: 'basic' }))).results as { basic: string; freq: number }[];
    expect(foreground.map((r) => r.basic)).toEqual(['blue']);
    expect(foreground[0]!.freq).toBe(1);
  });

  it('person outfit falls back to the foreground when nobody is in the picture', async () => {
    const garment = image(240, 320, (x, y) => (x > 60 && x < 180 && y > 40 && y < 280 ? [30, 120, 60] : WHITE));
    const results = (await colorOutfitHandler.run(ctx, input(garment, { granularity: 'major', return_type: 'basic' }))).results as { basic: string }[];
    expect(results.map((r) => r.basic)).toEqual(['green']);
  });

  it('names a known colour from its hex', () => {
    expect(ciede2000(hexToLab('#c81e28'), rgbToLab(...RED))).toBeLessThan(1e-9);
  });
});
