/**
 * `npm run eval -- color`: colour services (_0000072/3/4) and textures of fashion analysis (_0000111), through
 * the real handlers and a real inference pool where a service is involved.
 *
 * (a) Naming. Every W3C colour as a 96×96 patch with pixel noise (±4) saved as JPEG (quality 90), through the
 *     everything service with `granularity=dominant`: W3C name correct when its colour equals the patch's
 *     (gray/grey and aqua/cyan spellings are one colour), ΔE2000 of the answered rgb; basic name correct when
 *     it is one of the acceptable basic terms hand-assigned to that W3C colour (ambiguous colours such as
 *     coral accept two or three). ISCC–NBS leave-one-out: the basic term of each of the 267 centroids
 *     predicted from the other 266.
 * (b) Proportions. 60 images of 2–4 random, mutually distinct colours (ΔE2000 ≥ 20) in random proportions
 *     and layouts, noise and JPEG: `detailed` palette; count found = true count, mean absolute freq error
 *     of each true colour (matched to the nearest answered colour; 0 when missing), ΔE2000 of the match.
 * (c) Foreground. 40 synthetic product shots (an object of random colour and shape on a plain or graded
 *     background, with a soft shadow): the foreground service's dominant colour must be the object's
 *     (ΔE2000 < 10) and the background colour must hold < 5 % of its `detailed` answer.
 * (d) Textures. Synthetic fabrics with known labels (stripes in 4 orientations × 3 periods × 3 colour pairs,
 *     plaid, polka dots, plain, colour blocks, camouflage, leopard rosettes, colour noise): accuracy per class at 256 px with
 *     JPEG quality 80, and shrunk to 160 px behind a garment-shaped mask with JPEG quality 70.
 * (e) Real photos (Debian `darknet`, `python3-skimage`): the answers of the three colour services and of
 *     fashion analysis, listed for inspection (no ground truth).
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import path from 'node:path';
import sharp from 'sharp';
import { W3C_COLORS, ISCC_NBS_COLORS, type BasicColorId } from '@iris/shared';
import { printTable } from '../../scripts/table.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import type { AnalysisContext, EnvelopeFields } from '../src/domains/analysis/analysis-registry.js';
import { colorEverythingHandler, colorForegroundHandler, colorOutfitHandler } from '../src/domains/analysis/color/color.handlers.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { ciede2000, hexToLab, hexToRgb, rgbToLab } from '../src/vision/color/color-space.js';
import { dressingHandler } from '../src/domains/analysis/dressing/dressing.handler.js';
import * as P from '../test/support/synthetic-patterns.js';
import { classifyTexture } from '../src/vision/dressing/texture-classifier.js';
import { textureFeatures } from '../src/vision/dressing/texture-features.js';
import { debianPackage, isMissing } from './lib/debian-datasets.js';

/** Acceptable basic colour terms per W3C colour (hand-assigned; the first is the most likely). */
const W3C_BASIC: Record<string, BasicColorId[]> = {
  aliceblue: ['white', 'blue'], antiquewhite: ['white'], aqua: ['cyan'], aquamarine: ['cyan', 'green'], azure: ['white', 'cyan'],
  beige: ['white', 'yellow'], bisque: ['orange', 'white'], black: ['black'], blanchedalmond: ['white', 'yellow'], blue: ['blue'],
  blueviolet: ['purple', 'blue'], brown: ['brown', 'red'], burlywood: ['brown'], cadetblue: ['cyan', 'blue'], chartreuse: ['green'],
  chocolate: ['brown', 'orange'], coral: ['orange', 'pink'], cornflowerblue: ['blue'], cornsilk: ['white', 'yellow'], crimson: ['red'],
  cyan: ['cyan'], darkblue: ['blue'], darkcyan: ['cyan'], darkgoldenrod: ['yellow', 'brown', 'orange'], darkgray: ['gray'],
  darkgreen: ['green'], darkkhaki: ['yellow', 'brown', 'green'], darkmagenta: ['purple'], darkolivegreen: ['green'],
  darkorange: ['orange'], darkorchid: ['purple'], darkred: ['red', 'brown'], darksalmon: ['pink', 'orange'], darkseagreen: ['green'],
  darkslateblue: ['blue', 'purple'], darkslategray: ['gray', 'green', 'cyan'], darkturquoise: ['cyan'], darkviolet: ['purple'],
  deeppink: ['pink'], deepskyblue: ['blue', 'cyan'], dimgray: ['gray'], dodgerblue: ['blue'], firebrick: ['red'],
  floralwhite: ['white'], forestgreen: ['green'], fuchsia: ['purple', 'pink'], gainsboro: ['gray', 'white'], ghostwhite: ['white'],
  gold: ['yellow'], goldenrod: ['yellow', 'orange'], gray: ['gray'], green: ['green'], greenyellow: ['green', 'yellow'],
  honeydew: ['white', 'green'], hotpink: ['pink'], indianred: ['red', 'pink'], indigo: ['purple', 'blue'], ivory: ['white'],
  khaki: ['yellow'], lavender: ['white', 'purple'], lavenderblush: ['white', 'pink'], lawngreen: ['green'],
  lemonchiffon: ['yellow', 'white'], lightblue: ['blue', 'cyan'], lightcoral: ['pink', 'red'], lightcyan: ['cyan', 'white'],
  lightgoldenrodyellow: ['yellow', 'white'], lightgray: ['gray', 'white'], lightgreen: ['green'], lightpink: ['pink'],
  lightsalmon: ['orange', 'pink'], lightseagreen: ['cyan', 'green'], lightskyblue: ['blue'], lightslategray: ['gray', 'blue'],
  lightsteelblue: ['blue', 'gray'], lightyellow: ['yellow', 'white'], lime: ['green'], limegreen: ['green'], linen: ['white'],
  magenta: ['purple', 'pink'], maroon: ['red', 'brown'], mediumaquamarine: ['green', 'cyan'], mediumblue: ['blue'],
  mediumorchid: ['purple'], mediumpurple: ['purple'], mediumseagreen: ['green'], mediumslateblue: ['purple', 'blue'],
  mediumspringgreen: ['green', 'cyan'], mediumturquoise: ['cyan'], mediumvioletred: ['pink', 'purple', 'red'],
  midnightblue: ['blue'], mintcream: ['white'], mistyrose: ['pink', 'white'], moccasin: ['yellow', 'orange', 'white'],
  navajowhite: ['orange', 'yellow', 'white'], navy: ['blue'], oldlace: ['white'], olive: ['green', 'yellow', 'brown'],
  olivedrab: ['green'], orange: ['orange'], orangered: ['red', 'orange'], orchid: ['purple', 'pink'], palegoldenrod: ['yellow'],
  palegreen: ['green'], paleturquoise: ['cyan'], palevioletred: ['pink'], papayawhip: ['white', 'yellow', 'orange'],
  peachpuff: ['orange', 'pink'], peru: ['brown', 'orange'], pink: ['pink'], plum: ['purple', 'pink'], powderblue: ['blue', 'cyan'],
  purple: ['purple'], red: ['red'], rosybrown: ['brown', 'pink'], royalblue: ['blue'], saddlebrown: ['brown'],
  salmon: ['pink', 'orange', 'red'], sandybrown: ['orange', 'brown'], seagreen: ['green'], seashell: ['white'], sienna: ['brown'],
  silver: ['gray'], skyblue: ['blue'], slateblue: ['blue', 'purple'], slategray: ['gray', 'blue'], snow: ['white'],
  springgreen: ['green'], steelblue: ['blue'], tan: ['brown'], teal: ['cyan', 'green', 'blue'], thistle: ['purple', 'pink'],
  tomato: ['red', 'orange'], turquoise: ['cyan'], violet: ['purple', 'pink'], wheat: ['yellow', 'brown', 'white'], white: ['white'],
  whitesmoke: ['white', 'gray'], yellow: ['yellow'], yellowgreen: ['green'],
};
const basicOf = (w3c: string) => W3C_BASIC[w3c] ?? W3C_BASIC[w3c.replace('grey', 'gray')] ?? [];

async function jpegRoundTrip(image: RgbImage, quality: number): Promise<RgbImage> {
  const jpeg = await sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).jpeg({ quality }).toBuffer();
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

function paint(width: number, height: number, seed: number, at: (x: number, y: number) => readonly number[]): RgbImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = at(x, y);
      for (let ch = 0; ch < 3; ch++) data[(y * width + x) * 3 + ch] = Math.max(0, Math.min(255, Math.round(c[ch]! + (random() - 0.5) * 8)));
    }
  }
  return { data, width, height };
}

type Item = Omit<EnvelopeFields['color']['results'][number], 'rgb'> & { rgb: [number, number, number] };

async function ask(ctx: AnalysisContext, handler: typeof colorEverythingHandler, rgb: RgbImage, granularity: string, returnType: string, lang: 'en' | 'zh' = 'en'): Promise<Item[]> {
  const out = await handler.run(ctx, { rgb, encoded: new Uint8Array(0), params: { granularity, return_type: returnType }, lang });
  return out.results.map((item) => ({ ...item, rgb: [item.rgb[0]!, item.rgb[1]!, item.rgb[2]!] }));
}

async function naming(ctx: AnalysisContext): Promise<void> {
  let w3cRight = 0, basicRight = 0;
  const deltas: number[] = [];
  const wrongBasic: string[] = [];
  const wrongW3c: string[] = [];
  await Promise.all(
    W3C_COLORS.map(async (c, i) => {
      const rgb = hexToRgb(c.hex);
      const patch = await jpegRoundTrip(paint(96, 96, i + 1, () => rgb), 90);
      const [w3c] = await ask(ctx, colorEverythingHandler, patch, 'dominant', 'w3c');
      const [basic] = await ask(ctx, colorEverythingHandler, patch, 'dominant', 'basic');
      const answered = W3C_COLORS.find((x) => x.name === w3c!.w3c);
      if (answered?.hex === c.hex) w3cRight++;
      else wrongW3c.push(`${c.name}→${w3c!.w3c}`);
      if (basicOf(c.name).includes(basic!.basic as BasicColorId)) basicRight++;
      else wrongBasic.push(`${c.name}→${basic!.basic}`);
      deltas.push(ciede2000(rgbToLab(...w3c!.rgb), hexToLab(c.hex)));
    }),
  );
  let loo = 0;
  for (const c of ISCC_NBS_COLORS) {
    const lab = hexToLab(c.hex);
    let best = ISCC_NBS_COLORS[0]!, bestD = Infinity;
    for (const o of ISCC_NBS_COLORS) {
      if (o === c) continue;
      const d = ciede2000(lab, hexToLab(o.hex));
      if (d < bestD) { bestD = d; best = o; }
    }
    if (best.basic === c.basic) loo++;
  }
  const n = W3C_COLORS.length;
  deltas.sort((a, b) => a - b);
  printTable(['test', 'n', 'accuracy', 'note'], [
    ['W3C name of a W3C colour patch (JPEG q90, noise)', n, w3cRight / n, wrongW3c.slice(0, 6).join(', ') || '–'],
    ['basic name of a W3C colour patch (hand-assigned acceptable terms)', n, basicRight / n, wrongBasic.slice(0, 8).join(', ') || '–'],
    ['basic term of an ISCC–NBS centroid from the other 266 (leave-one-out)', ISCC_NBS_COLORS.length, loo / ISCC_NBS_COLORS.length, 'nearest-centroid naming'],
  ]);
  printTable(['answered rgb vs patch colour', 'median ΔE2000', 'p95 ΔE2000', 'max ΔE2000'], [
    ['W3C patches, dominant colour', deltas[Math.floor(n / 2)]!, deltas[Math.floor(0.95 * (n - 1))]!, deltas[n - 1]!],
  ]);
}

function distinctColors(random: () => number, count: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  while (out.length < count) {
    const c: [number, number, number] = [0, 0, 0].map(() => Math.floor(random() * 256)) as [number, number, number];
    if (out.every((o) => ciede2000(rgbToLab(...o), rgbToLab(...c)) >= 20)) out.push(c);
  }
  return out;
}

async function proportions(ctx: AnalysisContext): Promise<void> {
  const random = seededRandom(2024);
  const rows: (string | number)[][] = [];
  const byCount = new Map<number, { right: number; n: number; err: number[]; de: number[] }>();
  for (let t = 0; t < 60; t++) {
    const count = 2 + (t % 3);
    const colors = distinctColors(random, count);
    const raw = colors.map(() => 0.1 + random());
    const sum = raw.reduce((s, v) => s + v, 0);
    const shares = raw.map((v) => v / sum);
    const cuts = shares.map((_, i) => shares.slice(0, i + 1).reduce((s, v) => s + v, 0));
    const vertical = t % 2 === 0;
    const image = await jpegRoundTrip(
      paint(320, 240, t + 100, (x, y) => {
        const u = vertical ? x / 320 : y / 240;
        return colors[cuts.findIndex((c) => u < c)] ?? colors[count - 1]!;
      }),
      85,
    );
    const results = await ask(ctx, colorEverythingHandler, image, 'detailed', 'basic');
    const stat = byCount.get(count) ?? { right: 0, n: 0, err: [], de: [] };
    stat.n++;
    if (results.length === count) stat.right++;
    colors.forEach((c, i) => {
      const lab = rgbToLab(...c);
      let best: Item | undefined, bestD = Infinity;
      for (const r of results) {
        const d = ciede2000(lab, rgbToLab(...r.rgb));
        if (d < bestD) { bestD = d; best = r; }
      }
      stat.err.push(best && bestD < 10 ? Math.abs(best.freq - shares[i]!) : shares[i]!);
      stat.de.push(bestD);
    });
    byCount.set(count, stat);
  }
  for (const [count, s] of [...byCount].sort((a, b) => a[0] - b[0])) {
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    rows.push([count, s.n, s.right / s.n, mean(s.err), mean(s.de)]);
  }
  printTable(['true colours', 'images', 'count correct', 'mean |freq error|', 'mean ΔE2000 of match'], rows);
}

async function foreground(ctx: AnalysisContext): Promise<void> {
  const random = seededRandom(77);
  let right = 0, clean = 0;
  const n = 40;
  for (let t = 0; t < n; t++) {
    const [object, bg] = distinctColors(random, 2) as [[number, number, number], [number, number, number]];
    const light = t % 2 === 0 ? ([240, 240, 238] as const) : bg;
    const graded = t % 4 >= 2;
    const cx = 130 + random() * 60, cy = 100 + random() * 40, rx = 50 + random() * 40, ry = 40 + random() * 40;
    const image = await jpegRoundTrip(
      paint(320, 240, t + 500, (x, y) => {
        const inside = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
        if (inside) return object;
        const shadow = ((x - cx - 8) / rx) ** 2 + ((y - cy - 10) / ry) ** 2 <= 1 ? 0.85 : 1;
        const grade = graded ? 0.9 + (0.1 * y) / 240 : 1;
        return light.map((v) => v * shadow * grade);
      }),
      85,
    );
    const results = await ask(ctx, colorForegroundHandler, image, 'detailed', 'basic');
    if (results[0] && ciede2000(rgbToLab(...results[0].rgb), rgbToLab(...object)) < 10) right++;
    const bgLab = rgbToLab(...(light as unknown as [number, number, number]));
    const bgShare = results.filter((r) => ciede2000(rgbToLab(...r.rgb), bgLab) < 10).reduce((s, r) => s + r.freq, 0);
    if (bgShare < 0.05) clean++;
  }
  printTable(['foreground service, synthetic product shots', 'n', 'share'], [
    ['dominant colour is the object', n, right / n],
    ['background colour < 5 % of the detailed answer', n, clean / n],
  ]);
}

function textures(): Promise<void> {
  const pairs: [P.Color, P.Color][] = [[[240, 240, 235], [30, 40, 90]], [[200, 30, 40], [245, 245, 245]], [[40, 40, 40], [230, 200, 60]]];
  const cases: { label: string; expected: string[]; image: RgbImage }[] = [];
  let seed = 1;
  for (const angle of [0, 45, 90, 135]) for (const period of [8, 14, 24]) for (const [a, b] of pairs) cases.push({ label: 'Stripe', expected: ['Stripe'], image: P.stripes(256, angle, period, a, b, seed++) });
  for (const period of [16, 24, 36]) for (const [a, b] of pairs.slice(0, 2)) cases.push({ label: 'Plaid', expected: ['Plaid'], image: P.plaid(256, period, a, b, seed++) });
  for (const [spacing, radius] of [[16, 4], [24, 5], [32, 8]] as const) for (const [a, b] of pairs.slice(0, 2)) cases.push({ label: 'Polkadots', expected: ['Polkadots'], image: P.polkaDots(256, spacing, radius, b, a, seed++) });
  for (const c of [[30, 40, 90], [200, 30, 40], [240, 240, 235], [90, 120, 60], [180, 150, 120], [20, 20, 20]] as P.Color[]) cases.push({ label: 'Pure', expected: ['Pure'], image: P.plain(256, c, seed++) });
  for (const [a, b] of pairs) cases.push({ label: 'Contrast', expected: ['Contrast'], image: P.colorBlocks(256, a, b, seed++) });
  for (let i = 0; i < 4; i++) cases.push({ label: 'Camo', expected: ['Camo'], image: P.camouflage(256, seed++) });
  for (let i = 0; i < 4; i++) cases.push({ label: 'Leopard', expected: ['Leopard'], image: P.leopard(256, seed++) });
  for (let i = 0; i < 4; i++) cases.push({ label: 'noise (Printing)', expected: ['Printing'], image: P.colorNoise(256, seed++) });
  return (async () => {
    // Hard variant: the fabric shrunk to 60 % (160 px), seen through a garment-shaped mask, JPEG q70.
    const garmentMask = { data: new Uint8Array(160 * 160), width: 160, height: 160 };
    for (let y = 0; y < 160; y++) {
      for (let x = 0; x < 160; x++) {
        const halfWidth = y < 50 ? 70 : 45 + (y - 50) * 0.1;
        if (Math.abs(x - 80) <= halfWidth && y > 8 && y < 155) garmentMask.data[y * 160 + x] = 255;
      }
    }
    type Stat = { right: number; n: number; wrong: Map<string, number> };
    const stats = new Map<string, { clean: Stat; hard: Stat }>();
    const count = (s: Stat, got: string[], expected: string[]) => {
      s.n++;
      if (got.join() === expected.join()) s.right++;
      else s.wrong.set(got.join() || '(none)', (s.wrong.get(got.join() || '(none)') ?? 0) + 1);
    };
    for (const c of cases) {
      const s = stats.get(c.label) ?? { clean: { right: 0, n: 0, wrong: new Map() }, hard: { right: 0, n: 0, wrong: new Map() } };
      count(s.clean, classifyTexture(textureFeatures(await jpegRoundTrip(c.image, 80), null)), c.expected);
      const { data, info } = await sharp(Buffer.from(c.image.data), { raw: { width: 256, height: 256, channels: 3 } }).resize(160, 160).raw().toBuffer({ resolveWithObject: true });
      const small = await jpegRoundTrip({ data: new Uint8Array(data), width: info.width, height: info.height }, 70);
      count(s.hard, classifyTexture(textureFeatures(small, garmentMask)), c.expected);
      stats.set(c.label, s);
    }
    const sum = (k: 'clean' | 'hard') => [...stats.values()].reduce((a, s) => [a[0]! + s[k].right, a[1]! + s[k].n], [0, 0]);
    const wrong = (s: Stat) => [...s.wrong].map(([k, v]) => `${k}×${v}`).join(', ') || '–';
    const [cleanRight, n] = sum('clean');
    const [hardRight] = sum('hard');
    printTable(
      ['synthetic texture', 'n', 'accuracy (256 px, JPEG q80)', 'accuracy (160 px, garment mask, JPEG q70)', 'confused with (clean / hard)'],
      [...[...stats].map(([label, s]) => [label, s.clean.n, s.clean.right / s.clean.n, s.hard.right / s.hard.n, `${wrong(s.clean)} / ${wrong(s.hard)}`]), ['all', n!, cleanRight! / n!, hardRight! / n!, '']],
    );
  })();
}

async function realPhotos(ctx: AnalysisContext): Promise<void> {
  const photos: string[] = [];
  const darknet = debianPackage('darknet');
  if (!isMissing(darknet)) photos.push(path.join(darknet.root, 'usr/share/darknet/data/person.jpg'));
  const skimage = debianPackage('python3-skimage');
  if (!isMissing(skimage)) for (const f of ['astronaut.png', 'coffee.png', 'chelsea.png']) photos.push(path.join(skimage.root, 'usr/lib/python3/dist-packages/skimage/data', f));
  if (!photos.length) {
    console.log('real photos: darknet and python3-skimage unavailable, skipped\n');
    return;
  }
  const rows: string[][] = [];
  for (const file of photos) {
    const { data, info } = await sharp(file).removeAlpha().resize(640, 640, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
    const rgb = { data: new Uint8Array(data), width: info.width, height: info.height };
    const fmt = (items: Item[]) => items.map((i) => `${i.w3c} ${(100 * i.freq).toFixed(0)}%`).join(', ');
    const every = await ask(ctx, colorEverythingHandler, rgb, 'major', 'w3c');
    const fg = await ask(ctx, colorForegroundHandler, rgb, 'major', 'w3c');
    const outfit = await ask(ctx, colorOutfitHandler, rgb, 'major', 'w3c');
    const dressing = await dressingHandler.run(ctx, { rgb, encoded: new Uint8Array(0), params: {}, lang: 'en' });
    const items = (dressing.results as Record<string, unknown>[]).map((r) => `${r['item-en'] as string}${(r['textures-en'] as string[]).length ? ` (${(r['textures-en'] as string[]).join(', ')})` : ''}`);
    rows.push([path.basename(file), fmt(every), fmt(fg), fmt(outfit), items.join(', ') || '–']);
  }
  printTable(['photo', 'everything (major, w3c)', 'foreground', 'person outfit', 'fashion items'], rows);
}

export default async function run(): Promise<void> {
  const pool = new InferencePool();
  const ctx = { pool };
  // The pool's threads do not keep the process alive on their own.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await naming(ctx);
    await proportions(ctx);
    await foreground(ctx);
    await textures();
    await realPhotos(ctx);
  } finally {
    clearInterval(keepAlive);
    await pool.close();
  }
}
