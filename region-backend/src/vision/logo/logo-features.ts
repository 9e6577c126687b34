/**
 * ORB keypoints and descriptors of reference artwork and of query pictures (runs on inference threads).
 *
 * References: transparent margins trimmed, alpha flattened on white, rescaled to a fixed frame, then described
 * at three scales (each with ORB's own pyramid) on a copy padded with the artwork's border colour, so that the
 * small copies of a logo in a query still find counterparts. Queries: grey, at most `QUERY.maxSide` pixels.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { CvScope, type Cv } from '../runtime/opencv-runtime.js';
import { QUERY, REFERENCE, VERIFY } from './logo-params.js';
import { greyAt, greyMat, orbInto, packFeatures, resized, type FeatureSet, type RawFeatures } from './orb-extraction.js';
import type { GreyImage, Template } from './logo-verify.js';

export type { FeatureSet };

/** Pixels with an alpha channel, 4 bytes per pixel. */
export interface RgbaImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface ReferenceFeatures extends FeatureSet {
  /** Rectangle of the artwork in the feature frame: [x0, y0, x1, y1] (the whole frame after trimming). */
  outline: [number, number, number, number];
  /** The artwork shrunk for the photometric check, covering the outline. */
  template: Template;
}

export interface QueryFeatures extends FeatureSet {
  /** The grey picture the keypoints were found in. */
  grey: GreyImage;
}

export class ReferenceImageError extends Error {
  override readonly name = 'ReferenceImageError';
}

/** Bounding box of pixels that are not (almost) transparent; null when everything is transparent. */
export function opaqueBounds(image: RgbaImage, minAlpha = 16): { x: number; y: number; width: number; height: number } | null {
  let x0 = image.width;
  let y0 = image.height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (image.data[(y * image.width + x) * 4 + 3]! < minAlpha) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** Grey levels of a region of an RGBA image, alpha composited on white (BT.601 luma). */
export function greyOnWhite(image: RgbaImage, region: { x: number; y: number; width: number; height: number }): Uint8Array {
  const out = new Uint8Array(region.width * region.height);
  for (let y = 0; y < region.height; y++) {
    for (let x = 0; x < region.width; x++) {
      const i = ((region.y + y) * image.width + region.x + x) * 4;
      const a = image.data[i + 3]! / 255;
      const luma = 0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!;
      out[y * region.width + x] = Math.round(luma * a + 255 * (1 - a));
    }
  }
  return out;
}

/** Alpha channel of a region of an RGBA image. */
function alphaOf(image: RgbaImage, region: { x: number; y: number; width: number; height: number }): Uint8Array {
  const out = new Uint8Array(region.width * region.height);
  for (let y = 0; y < region.height; y++) {
    for (let x = 0; x < region.width; x++) out[y * region.width + x] = image.data[((region.y + y) * image.width + region.x + x) * 4 + 3]!;
  }
  return out;
}

/** Median grey level of the outermost ring of pixels: the colour the artwork is padded with. */
export function borderGrey(grey: Uint8Array, width: number, height: number): number {
  const values: number[] = [];
  for (let x = 0; x < width; x++) values.push(grey[x]!, grey[(height - 1) * width + x]!);
  for (let y = 1; y < height - 1; y++) values.push(grey[y * width]!, grey[y * width + width - 1]!);
  values.sort((a, b) => a - b);
  return values[values.length >> 1] ?? 255;
}

/** Features of a reference logo (RGBA, any size); throws `ReferenceImageError` for unusable artwork. */
export function referenceFeatures(cv: Cv, image: RgbaImage): ReferenceFeatures {
  const bounds = opaqueBounds(image);
  if (!bounds) throw new ReferenceImageError('the reference image is fully transparent');
  if (Math.min(bounds.width, bounds.height) < REFERENCE.minSide) {
    throw new ReferenceImageError(`the logo artwork is ${bounds.width}×${bounds.height} pixels; at least ${REFERENCE.minSide} pixels per side are needed`);
  }
  const grey = greyOnWhite(image, bounds);
  const pad = borderGrey(grey, bounds.width, bounds.height);
  const factor = REFERENCE.side / Math.max(bounds.width, bounds.height);
  const width = Math.max(1, Math.round(bounds.width * factor));
  const height = Math.max(1, Math.round(bounds.height * factor));
  const scope = new CvScope();
  try {
    const base = resized(cv, scope, greyMat(cv, scope, grey, bounds.width, bounds.height), width, height);
    const raw: RawFeatures = { points: [], descriptors: [] };
    REFERENCE.scales.forEach((scale, i) => {
      const scaled = resized(cv, scope, base, Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)));
      const padded = scope.keep(new cv.Mat());
      const p = REFERENCE.padding;
      cv.copyMakeBorder(scaled, padded, p, p, p, p, cv.BORDER_CONSTANT, new cv.Scalar(pad, pad, pad, 255));
      orbInto(cv, scope, padded, REFERENCE.featuresPerScale[i]!, p, scale, raw);
    });
    const features = packFeatures(raw, width, height);
    if (features.count < REFERENCE.minKeypoints) {
      throw new ReferenceImageError(`the logo has too little texture to be recognised (${features.count} keypoints, at least ${REFERENCE.minKeypoints} needed)`);
    }
    const t = VERIFY.templateSide / Math.max(bounds.width, bounds.height);
    const tw = Math.max(8, Math.round(bounds.width * t));
    const th = Math.max(8, Math.round(bounds.height * t));
    const templateGrey = resized(cv, scope, greyMat(cv, scope, grey, bounds.width, bounds.height), tw, th);
    const templateMask = resized(cv, scope, greyMat(cv, scope, alphaOf(image, bounds), bounds.width, bounds.height), tw, th);
    const pixels = new Uint8Array(tw * th * 2);
    pixels.set(templateGrey.data.subarray(0, tw * th));
    pixels.set(templateMask.data.subarray(0, tw * th), tw * th);
    return { ...features, outline: [0, 0, width, height], template: { width: tw, height: th, pixels } };
  } finally {
    scope.release();
  }
}

/** Features of a query picture, in a frame of at most `QUERY.maxSide` pixels. */
export function queryFeatures(cv: Cv, image: RgbImage): QueryFeatures {
  const factor = Math.min(QUERY.maxUpscale, QUERY.maxSide / Math.max(image.width, image.height));
  const width = Math.max(1, Math.round(image.width * factor));
  const height = Math.max(1, Math.round(image.height * factor));
  const scope = new CvScope();
  try {
    const scaled = greyAt(cv, scope, image, width, height);
    const budget = Math.max(500, Math.round((QUERY.features * width * height) / (QUERY.maxSide * QUERY.maxSide)));
    const raw: RawFeatures = { points: [], descriptors: [] };
    orbInto(cv, scope, scaled, budget, 0, 1, raw);
    return { ...packFeatures(raw, width, height), grey: { data: scaled.data.slice(0, width * height), width, height } };
  } finally {
    scope.release();
  }
}
