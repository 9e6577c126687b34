/**
 * ORB extraction shared by the logo matcher (logo-features.ts) and search re-ranking
 * (embedding/local-features.ts): grey pictures at a working size, ORB keypoints and descriptors, packed.
 */
import { type Cv, type CvMat, type CvScope } from '../runtime/opencv-runtime.js';
import { DESCRIPTOR_BYTES } from './logo-params.js';

/** Keypoints (x, y pairs in the frame `width × height`) and their 32-byte descriptors, row by row. */
export interface FeatureSet {
  width: number;
  height: number;
  count: number;
  points: Float32Array;
  descriptors: Uint8Array;
}

export interface RawFeatures {
  points: number[];
  descriptors: Uint8Array[];
  /** Each keypoint's corner response, when given. */
  responses?: number[];
}

export function greyMat(cv: Cv, scope: CvScope, grey: Uint8Array, width: number, height: number): CvMat {
  const mat = scope.keep(new cv.Mat(height, width, cv.CV_8UC1));
  mat.data.set(grey);
  return mat;
}

export function resized(cv: Cv, scope: CvScope, src: CvMat, width: number, height: number): CvMat {
  if (width === src.cols && height === src.rows) return src;
  const dst = scope.keep(new cv.Mat());
  const shrinking = width < src.cols;
  cv.resize(src, dst, new cv.Size(width, height), 0, 0, shrinking ? cv.INTER_AREA : cv.INTER_CUBIC);
  return dst;
}

/** An RGB picture in grey at `width × height`; mirrored left to right when asked. */
export function greyAt(cv: Cv, scope: CvScope, image: { data: Uint8Array; width: number; height: number }, width: number, height: number, mirror = false): CvMat {
  const rgb = scope.keep(new cv.Mat(image.height, image.width, cv.CV_8UC3));
  rgb.data.set(image.data);
  const grey = scope.keep(new cv.Mat());
  cv.cvtColor(rgb, grey, cv.COLOR_RGB2GRAY);
  const scaled = resized(cv, scope, grey, width, height);
  if (!mirror) return scaled;
  const flipped = scope.keep(new cv.Mat());
  cv.flip(scaled, flipped, 1);
  return flipped;
}

/**
 * ORB on one image; points are mapped back with `(p - offset) / scale`. `mask` (8-bit, the image's size) keeps
 * keypoints where it is non-zero.
 */
export function orbInto(cv: Cv, scope: CvScope, image: CvMat, maxFeatures: number, offset: number, scale: number, out: RawFeatures, mask?: CvMat): void {
  const orb = scope.keep(new cv.ORB(maxFeatures));
  const keypoints = scope.keep(new cv.KeyPointVector());
  const descriptors = scope.keep(new cv.Mat());
  orb.detectAndCompute(image, mask ?? scope.keep(new cv.Mat()), keypoints, descriptors);
  const n = keypoints.size();
  if (!n || descriptors.rows !== n || descriptors.cols !== DESCRIPTOR_BYTES) return;
  for (let i = 0; i < n; i++) {
    const keypoint = keypoints.get(i);
    out.points.push((keypoint.pt.x - offset) / scale, (keypoint.pt.y - offset) / scale);
    out.responses?.push(keypoint.response);
  }
  out.descriptors.push(descriptors.data.slice(0, n * DESCRIPTOR_BYTES));
}

export function packFeatures(raw: RawFeatures, width: number, height: number): FeatureSet {
  const count = raw.points.length / 2;
  const descriptors = new Uint8Array(count * DESCRIPTOR_BYTES);
  let offset = 0;
  for (const block of raw.descriptors) {
    descriptors.set(block, offset);
    offset += block.length;
  }
  return { width, height, count, points: Float32Array.from(raw.points), descriptors };
}
