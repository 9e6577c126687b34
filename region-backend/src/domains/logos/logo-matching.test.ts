/**
 * Logo matching with the real OpenCV build, in this thread: synthetic emblems pasted into cluttered pictures
 * at known positions, scales, rotations and perspective.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryFeatures, ReferenceImageError, referenceFeatures, type RgbaImage } from '../../vision/logo/logo-features.js';
import { iou } from '../../vision/logo/logo-geometry.js';
import { packableReference, packLibrary, type PackableReference } from './logo-library.js';
import { candidateReferences, matchLibrary, type LibraryPayload } from '../../vision/logo/logo-matcher.js';
import { SHORTLIST } from '../../vision/logo/logo-params.js';
import { opencv, type Cv } from '../../vision/runtime/opencv-runtime.js';
import { clutterBackground, decodeRgb, encodeJpeg, placeLogo, renderLogo, type Placement } from '../../../test/support/logo-fixtures.js';

async function rgba(png: Buffer): Promise<RgbaImage> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

let cv: Cv;
let library: LibraryPayload;
let logoA: Buffer;
let logoB: Buffer;
let background: RgbImage;
const BRAND_A = 1;
const BRAND_B = 2;

async function place(image: RgbImage, logo: Buffer, placement: Placement) {
  return placeLogo(image, logo, placement);
}

const detect = (image: RgbImage) => matchLibrary(queryFeatures(cv, image), library);

beforeAll(async () => {
  cv = (await opencv()).cv;
  logoA = (await renderLogo('test-a', { word: 'KESTREL' })).png;
  logoB = (await renderLogo('test-b', { word: 'LUMEN', transparent: true })).png;
  const rows: PackableReference[] = [];
  for (const [brand, png] of [[BRAND_A, logoA], [BRAND_B, logoB]] as const) rows.push(packableReference(brand * 10, brand, referenceFeatures(cv, await rgba(png))));
  library = packLibrary('test', rows)!;
  background = await clutterBackground('test-scene', 800, 600);
});

describe('logo matching', () => {
  it('finds a registered logo at different positions, scales, rotations and perspectives', async () => {
    const placements: Placement[] = [
      { cx: 0.32, cy: 0.35, width: 0.45 },
      { cx: 0.7, cy: 0.62, width: 0.26, rotation: 15, tilt: 0.15 },
      { cx: 0.5, cy: 0.5, width: 0.62, rotation: -20 },
      { cx: 0.25, cy: 0.72, width: 0.2, rotation: 6, tilt: -0.2 },
    ];
    for (const placement of placements) {
      const placed = await place(background, logoA, placement);
      const found = detect(placed.image);
      expect(found, JSON.stringify(placement)).toHaveLength(1);
      expect(found[0]!.brandId).toBe(BRAND_A);
      expect(iou(found[0]!.box, placed.box), JSON.stringify(placement)).toBeGreaterThanOrEqual(0.5);
      expect(found[0]!.score).toBeGreaterThan(0);
      expect(found[0]!.score).toBeLessThanOrEqual(1);
    }
  });

  it('survives JPEG compression and blur', async () => {
    const placed = await place(background, logoA, { cx: 0.55, cy: 0.45, width: 0.35, rotation: -8 });
    const degraded = await decodeRgb(await encodeJpeg(placed.image, 55, 1));
    const found = detect(degraded);
    expect(found.map((d) => d.brandId)).toEqual([BRAND_A]);
    expect(iou(found[0]!.box, placed.box)).toBeGreaterThanOrEqual(0.5);
  });

  it('finds nothing in a picture without a registered logo', async () => {
    expect(detect(background)).toEqual([]);
    const other = await place(background, (await renderLogo('unregistered', { word: 'MARLIN' })).png, { cx: 0.5, cy: 0.5, width: 0.5 });
    expect(detect(other.image)).toEqual([]);
  });

  it('tells two brands apart, alone and side by side', async () => {
    const onlyB = await place(background, logoB, { cx: 0.4, cy: 0.4, width: 0.4, rotation: 10 });
    const foundB = detect(onlyB.image);
    expect(foundB.map((d) => d.brandId)).toEqual([BRAND_B]);
    expect(iou(foundB[0]!.box, onlyB.box)).toBeGreaterThanOrEqual(0.5);

    const withA = await place(background, logoA, { cx: 0.27, cy: 0.3, width: 0.4 });
    const both = await place(withA.image, logoB, { cx: 0.7, cy: 0.72, width: 0.38, rotation: -12 });
    const found = detect(both.image);
    expect(found.map((d) => d.brandId).sort()).toEqual([BRAND_A, BRAND_B]);
    expect(iou(found.find((d) => d.brandId === BRAND_A)!.box, withA.box)).toBeGreaterThanOrEqual(0.5);
    expect(iou(found.find((d) => d.brandId === BRAND_B)!.box, both.box)).toBeGreaterThanOrEqual(0.5);
  });

  it('finds several instances of one logo', async () => {
    const first = await place(background, logoA, { cx: 0.25, cy: 0.28, width: 0.38 });
    const second = await place(first.image, logoA, { cx: 0.72, cy: 0.7, width: 0.42, rotation: 12 });
    const found = detect(second.image);
    expect(found).toHaveLength(2);
    expect(found.every((d) => d.brandId === BRAND_A)).toBe(true);
    for (const truth of [first.box, second.box]) expect(Math.max(...found.map((d) => iou(d.box, truth)))).toBeGreaterThanOrEqual(0.5);
  });

  it('refuses reference artwork without texture, too small, or fully transparent', async () => {
    const plain = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#3366cc' } }).png().toBuffer();
    expect(() => referenceFeatures(cv, { ...rgbaSync(plain) })).toThrow(ReferenceImageError);
    const transparent = { data: new Uint8Array(100 * 100 * 4), width: 100, height: 100 };
    expect(() => referenceFeatures(cv, transparent)).toThrow(/transparent/);
    const tiny = await rgba(await sharp(logoA).resize(40).png().toBuffer());
    expect(() => referenceFeatures(cv, tiny)).toThrow(/at least/);
  });

  it('in a large library, shortlists the shown reference first and still finds it', async () => {
    const rows: PackableReference[] = [];
    for (let i = 0; i < SHORTLIST.above + 4; i++) {
      const art = await renderLogo(`test-extra-${i}`, { word: ['ORBIT', 'VANTA', 'QUILL', 'ZEPHYR'][i % 4], transparent: i % 2 === 0 });
      rows.push(packableReference(1000 + i, 100 + i, referenceFeatures(cv, await rgba(art.png))));
    }
    const large = packLibrary('test-large', [...rows, packableReference(BRAND_A * 10, BRAND_A, referenceFeatures(cv, await rgba(logoA)))])!;
    const placed = await place(background, logoA, { cx: 0.6, cy: 0.45, width: 0.3, rotation: 10, tilt: 0.1 });
    const query = queryFeatures(cv, placed.image);
    const shortlisted = candidateReferences(query, large);
    expect(shortlisted.length).toBeLessThanOrEqual(SHORTLIST.size);
    expect(shortlisted[0]!.brandId).toBe(BRAND_A);
    const found = matchLibrary(query, large);
    expect(found.map((d) => d.brandId)).toEqual([BRAND_A]);
    expect(iou(found[0]!.box, placed.box)).toBeGreaterThanOrEqual(0.5);
    // Nothing is found in a picture without a registered logo.
    expect(matchLibrary(queryFeatures(cv, background), large)).toEqual([]);
  });
});

// A flat image is the same everywhere: build its RGBA directly instead of decoding.
function rgbaSync(_png: Buffer): RgbaImage {
  const width = 300;
  const height = 200;
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([0x33, 0x66, 0xcc, 255], i * 4);
  return { data, width, height };
}
