/**
 * The generated logo-detection set: registered brands (synthetic emblems and real artwork from Debian
 * packages), query pictures with brands pasted at known places (real photos and cluttered drawings as
 * backgrounds) under scale, rotation, perspective, JPEG and blur, and negatives (backgrounds alone, and
 * backgrounds with logos nobody registered). Deterministic: the same options give the same pictures.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Box } from '../../src/vision/logo/logo-geometry.js';
import { clutterBackground, decodeRgb, encodeJpeg, placeLogo, renderLogo } from '../../test/support/logo-fixtures.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { debianPackage, isMissing, loadTestPhotos } from './debian-datasets.js';

export interface EvalLogo {
  /** Brand id used in the library. */
  id: number;
  name: string;
  source: 'synthetic' | 'opencv-doc' | 'python3-skimage';
  bytes: Buffer;
}

export interface Conditions {
  /** Logo width = scale × 30% of the picture width. */
  scale: number;
  rotation: number;
  tilt: number;
  jpeg: number;
  blur: number;
}

export interface EvalQuery {
  id: string;
  kind: 'positive' | 'negative' | 'distractor';
  image: RgbImage;
  truths: { brandId: number; box: Box; conditions: Conditions }[];
}

export interface LogoDataset {
  logos: EvalLogo[];
  queries: EvalQuery[];
  /** Backgrounds that are real photos (the rest are drawings). */
  realBackgrounds: number;
  missing: string[];
}

const NOMINAL_WIDTH = 0.3;
const LOGO_WORDS = ['ACME', 'NOVA', 'ORBIT', 'KESTREL', 'VANTA', 'LUMEN', 'ZEPHYR', 'QUILL', 'HALCYON', 'ARGENT', 'PELICAN', 'SUMMIT'];
const DISTRACTOR_WORDS = ['MARLIN', 'TORQUE', 'BRIO', 'SOLACE', 'CASCADE', 'TUNDRA'];

function realLogos(missing: string[]): Omit<EvalLogo, 'id'>[] {
  const out: Omit<EvalLogo, 'id'>[] = [];
  const opencv = debianPackage('opencv-doc');
  if (isMissing(opencv)) missing.push('opencv-doc');
  else {
    const dir = path.join(opencv.root, 'usr/share/doc/opencv-doc/examples/data');
    for (const [file, name] of [['WindowsLogo.jpg', 'Windows (opencv-doc)'], ['LinuxLogo.jpg', 'Linux (opencv-doc)'], ['opencv-logo.png', 'OpenCV (opencv-doc)']] as const) {
      if (existsSync(path.join(dir, file))) out.push({ name, source: 'opencv-doc', bytes: readFileSync(path.join(dir, file)) });
    }
  }
  const skimage = debianPackage('python3-skimage');
  if (isMissing(skimage)) missing.push('python3-skimage');
  else {
    const file = path.join(skimage.root, 'usr/lib/python3/dist-packages/skimage/data/logo.png');
    if (existsSync(file)) out.push({ name: 'scikit-image (python3-skimage)', source: 'python3-skimage', bytes: readFileSync(file) });
  }
  return out;
}

async function photoBackground(file: string): Promise<RgbImage> {
  const { data, info } = await sharp(file).rotate().removeAlpha().toColourspace('srgb').resize({ width: 800, height: 800, fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

function conditions(rand: () => number): Conditions {
  return {
    scale: 0.3 + 1.2 * rand(),
    rotation: -20 + 40 * rand(),
    tilt: rand() < 0.5 ? 0 : -0.3 + 0.6 * rand(),
    jpeg: [90, 70, 50, 30][Math.floor(rand() * 4)]!,
    blur: [0, 0, 0.8, 1.5][Math.floor(rand() * 4)]!,
  };
}

/** `seed` names the set: tuning and the reported evaluation use different seeds (different logos, placements, photos). */
export async function buildLogoDataset(options: { seed: string; syntheticBrands: number; placements: number; backgrounds: number; distractors: number }): Promise<LogoDataset> {
  const missing: string[] = [];
  const synthetic = await Promise.all(
    Array.from({ length: options.syntheticBrands }, async (_, i) => {
      // Distinct brands have distinct names: each brand gets its own word (and distractors other words).
      const art = await renderLogo(`${options.seed}-${i}`, { transparent: i % 2 === 1, word: LOGO_WORDS[i % LOGO_WORDS.length] });
      return { name: art.name, source: 'synthetic' as const, bytes: art.png };
    }),
  );
  const logos: EvalLogo[] = [...synthetic, ...realLogos(missing)].map((l, i) => ({ ...l, id: i + 1 }));
  const logoPng = new Map<number, Buffer>();
  for (const logo of logos) logoPng.set(logo.id, await sharp(logo.bytes).ensureAlpha().png().toBuffer());
  const distractorPngs = await Promise.all(
    Array.from({ length: options.distractors }, async (_, i) => (await renderLogo(`${options.seed}-distractor-${i}`, { transparent: i % 2 === 0, word: DISTRACTOR_WORDS[i % DISTRACTOR_WORDS.length] })).png),
  );

  const photos = loadTestPhotos();
  missing.push(...photos.missing.map((m) => m.pkg));
  const rand = seededRandom(options.seed);
  const photoFiles = [...photos.photos].sort((a, b) => a.id.localeCompare(b.id));
  for (let i = photoFiles.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [photoFiles[i], photoFiles[j]] = [photoFiles[j]!, photoFiles[i]!];
  }
  photoFiles.length = Math.min(photoFiles.length, options.backgrounds);
  const backgrounds: RgbImage[] = [];
  for (const photo of photoFiles) backgrounds.push(await photoBackground(photo.path));
  const realBackgrounds = backgrounds.length;
  for (let i = 0; backgrounds.length < options.backgrounds + 4; i++) backgrounds.push(await clutterBackground(`${options.seed}-${i}`, 800, 600));
  const background = () => backgrounds[Math.floor(rand() * backgrounds.length)]!;

  const queries: EvalQuery[] = [];
  const degrade = async (image: RgbImage, c: Conditions) => decodeRgb(await encodeJpeg(image, c.jpeg, c.blur));
  const placementOf = (c: Conditions, aspect: number, canvas: RgbImage) => {
    const width = Math.min(0.9, NOMINAL_WIDTH * c.scale);
    const halfW = width / 2 + 0.02;
    const halfH = ((width * canvas.width) / aspect / canvas.height) / 2 + 0.02;
    return { cx: halfW + rand() * Math.max(0, 1 - 2 * halfW), cy: Math.min(0.95, halfH + rand() * Math.max(0, 1 - 2 * halfH)), width, rotation: c.rotation, tilt: c.tilt };
  };
  for (const logo of logos) {
    const meta = await sharp(logoPng.get(logo.id)!).metadata();
    const aspect = (meta.width ?? 1) / (meta.height ?? 1);
    for (let p = 0; p < options.placements; p++) {
      const c = conditions(rand);
      const canvas = background();
      const placed = await placeLogo(canvas, logoPng.get(logo.id)!, placementOf(c, aspect, canvas));
      queries.push({ id: `logo${logo.id}-${p}`, kind: 'positive', image: await degrade(placed.image, c), truths: [{ brandId: logo.id, box: placed.box, conditions: c }] });
    }
  }
  // Two different brands in one picture, side by side.
  for (let p = 0; p < Math.max(2, Math.floor(logos.length / 2)); p++) {
    const [a, b] = [logos[(2 * p) % logos.length]!, logos[(2 * p + 1) % logos.length]!];
    const c = { ...conditions(rand), scale: 0.8 + 0.4 * rand(), tilt: 0 };
    const canvas = background();
    const left = await placeLogo(canvas, logoPng.get(a.id)!, { cx: 0.27, cy: 0.3 + 0.4 * rand(), width: 0.28, rotation: c.rotation / 2 });
    const right = await placeLogo(left.image, logoPng.get(b.id)!, { cx: 0.73, cy: 0.3 + 0.4 * rand(), width: 0.28, rotation: -c.rotation / 2 });
    queries.push({
      id: `pair${p}`,
      kind: 'positive',
      image: await degrade(right.image, c),
      truths: [
        { brandId: a.id, box: left.box, conditions: { ...c, scale: 0.28 / NOMINAL_WIDTH } },
        { brandId: b.id, box: right.box, conditions: { ...c, scale: 0.28 / NOMINAL_WIDTH } },
      ],
    });
  }
  // Negatives: every background alone, and backgrounds with logos nobody registered.
  for (const [i, canvas] of backgrounds.entries()) queries.push({ id: `background${i}`, kind: 'negative', image: await degrade(canvas, { scale: 1, rotation: 0, tilt: 0, jpeg: 70, blur: 0 }), truths: [] });
  for (let i = 0; i < backgrounds.length; i++) {
    const png = distractorPngs[i % Math.max(1, distractorPngs.length)];
    if (!png) break;
    const c = conditions(rand);
    const canvas = background();
    const meta = await sharp(png).metadata();
    const placed = await placeLogo(canvas, png, placementOf(c, (meta.width ?? 1) / (meta.height ?? 1), canvas));
    queries.push({ id: `distractor${i}`, kind: 'distractor', image: await degrade(placed.image, c), truths: [] });
  }
  return { logos, queries, realBackgrounds, missing };
}
