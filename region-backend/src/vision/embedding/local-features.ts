/**
 * Compact local features of a search image for geometric re-ranking: ORB keypoints (OpenCV) of the grey image
 * at a fixed working size, packed as one byte string (stored per record, a few kB) so a query can be verified
 * against its best candidates without touching their pictures. Runs on inference threads only.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { CvScope, type Cv, type CvMat } from '../runtime/opencv-runtime.js';
import { greyAt, orbInto, packFeatures, resized, type RawFeatures } from '../logo/orb-extraction.js';
import { DESCRIPTOR_BYTES } from '../logo/logo-params.js';
import { textBanner } from './text-banner.js';

export const LOCAL_FEATURES = {
  /** Recipe stored with the bytes: features of another recipe are re-extracted. */
  recipe: 'orb480-v1',
  /** Indexed pictures are described with their longer side at this many pixels. */
  indexSide: 480,
  indexFeatures: 300,
  /**
   * A query and its mirror image are described with their longer side at this many pixels, and with more
   * keypoints than indexed pictures: the query's ORB is most of re-ranking's cost (at 640 px it took 1.4–1.5 times
   * as long and verified no more in `npm run eval -- search-robustness`).
   */
  querySide: 480,
  /** The windows of a query (window-features.ts) are described as a picture of theirs would be, up to this side. */
  windowSide: 640,
  /** Small queries (thumbnails) are enlarged to at least this side so ORB's pyramid finds keypoints. */
  queryMinSide: 320,
  queryFeatures: 700,
};

/** Keypoints (x, y in the frame `width × height`) and their 32-byte ORB descriptors. */
export interface LocalFeatures {
  width: number;
  height: number;
  count: number;
  points: Float32Array;
  descriptors: Uint8Array;
}

/** Rows [top, top + height) of a picture, as fractions of its height, where no keypoint is taken (a text banner). */
export interface ExcludedRows {
  top: number;
  height: number;
}

/**
 * ORB features of an RGB image rescaled so its longer side is `side` pixels (of its mirror image when asked),
 * none inside `exclude`; the strongest corners first when asked (else in ORB's order).
 */
export function extractLocalFeatures(cv: Cv, image: RgbImage, side: number, maxFeatures: number, mirror = false, exclude?: ExcludedRows | null, strongestFirst = false): LocalFeatures {
  const { width, height } = sizeAt(image, side);
  const scope = new CvScope();
  try {
    return greyFeatures(cv, scope, greyAt(cv, scope, image, width, height, mirror), maxFeatures, exclude, strongestFirst);
  } finally {
    scope.release();
  }
}

function sizeAt(image: { width: number; height: number }, side: number): { width: number; height: number } {
  const factor = side / Math.max(image.width, image.height);
  return { width: Math.max(1, Math.round(image.width * factor)), height: Math.max(1, Math.round(image.height * factor)) };
}

/** ORB features of a grey picture (an 8-bit mat), none inside `exclude`. */
function greyFeatures(cv: Cv, scope: CvScope, grey: CvMat, maxFeatures: number, exclude?: ExcludedRows | null, strongestFirst = false): LocalFeatures {
  const { cols: width, rows: height } = grey;
  const raw: RawFeatures = { points: [], descriptors: [], ...(strongestFirst ? { responses: [] } : {}) };
  let mask: CvMat | undefined;
  if (exclude) {
    mask = scope.keep(new cv.Mat(height, width, cv.CV_8UC1, [255, 0, 0, 0]));
    const top = Math.max(0, Math.floor(exclude.top * height));
    const bottom = Math.min(height, Math.ceil((exclude.top + exclude.height) * height));
    mask.data.fill(0, top * width, bottom * width);
  }
  orbInto(cv, scope, grey, maxFeatures, 0, 1, raw, mask);
  const features = packFeatures(raw, width, height);
  return raw.responses ? strongestFirstOf(features, raw.responses) : features;
}

function strongestFirstOf(f: LocalFeatures, responses: number[]): LocalFeatures {
  const order = responses.map((_, i) => i).sort((a, b) => responses[b]! - responses[a]!);
  const points = new Float32Array(f.count * 2);
  const descriptors = new Uint8Array(f.count * DESCRIPTOR_BYTES);
  order.forEach((i, k) => {
    points[2 * k] = f.points[2 * i]!;
    points[2 * k + 1] = f.points[2 * i + 1]!;
    descriptors.set(f.descriptors.subarray(i * DESCRIPTOR_BYTES, (i + 1) * DESCRIPTOR_BYTES), k * DESCRIPTOR_BYTES);
  });
  return { ...f, points, descriptors };
}

/**
 * The ORB features of a query picture: described larger than indexed ones, small ones enlarged; `mirror`
 * describes its mirror image (ORB is not mirror-invariant: a mirrored copy matches its source that way). A
 * text banner across the query (text-banner.ts) is left out: its letters would take most keypoints. A caller
 * describing the picture and its mirror image passes the banner found once (mirroring keeps the rows).
 */
export function queryLocalFeatures(cv: Cv, image: RgbImage, mirror = false, banner = textBanner(image)): LocalFeatures {
  if (!mirror) return extractLocalFeatures(cv, image, wholeQuerySide(image), LOCAL_FEATURES.queryFeatures, false, banner);
  const { width, height } = sizeAt(image, wholeQuerySide(image));
  const scope = new CvScope();
  try {
    return mirrorOfGrey(cv, scope, greyAt(cv, scope, image, width, height), banner);
  } finally {
    scope.release();
  }
}

/** A grey picture, one byte per pixel, row by row. */
export interface GreyPicture {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A query's features with the grey picture they were described from and the banner rows left out. */
export interface QueryDescription {
  features: LocalFeatures;
  grey: GreyPicture;
  banner: ExcludedRows | null;
}

/**
 * queryLocalFeatures keeping the grey picture described: the mirror image is then described from it
 * (mirrorLocalFeatures) without converting and rescaling the query's pixels again.
 */
export function describeQuery(cv: Cv, image: RgbImage, banner = textBanner(image)): QueryDescription {
  const { width, height } = sizeAt(image, wholeQuerySide(image));
  const scope = new CvScope();
  try {
    const grey = greyAt(cv, scope, image, width, height);
    const features = greyFeatures(cv, scope, grey, LOCAL_FEATURES.queryFeatures, banner);
    return { features, grey: { data: grey.data.slice(0, width * height), width, height }, banner };
  } finally {
    scope.release();
  }
}

/**
 * The features of the query's mirror image, from the grey picture its own features were described from
 * (describeQuery).
 */
export function mirrorLocalFeatures(cv: Cv, grey: GreyPicture, banner: ExcludedRows | null): LocalFeatures {
  if (!Number.isInteger(grey.width) || !Number.isInteger(grey.height) || grey.width < 1 || grey.height < 1 || grey.data.length !== grey.width * grey.height) {
    throw new Error('local features: a grey picture of the wrong size');
  }
  const scope = new CvScope();
  try {
    const mat = scope.keep(new cv.Mat(grey.height, grey.width, cv.CV_8UC1));
    mat.data.set(grey.data);
    return mirrorOfGrey(cv, scope, mat, banner);
  } finally {
    scope.release();
  }
}

/** The mirror image's features from the query's grey picture (brought to the describing side if it is not at it). */
function mirrorOfGrey(cv: Cv, scope: CvScope, grey: CvMat, banner: ExcludedRows | null): LocalFeatures {
  const { width, height } = sizeAt({ width: grey.cols, height: grey.rows }, wholeQuerySide({ width: grey.cols, height: grey.rows }));
  const flipped = scope.keep(new cv.Mat());
  cv.flip(resized(cv, scope, grey, width, height), flipped, 1);
  return greyFeatures(cv, scope, flipped, LOCAL_FEATURES.queryFeatures, banner);
}

/** The longer side the whole query and its mirror image are described at: small ones enlarged, large ones shrunk. */
export function wholeQuerySide(image: { width: number; height: number }): number {
  return describedSide(image, LOCAL_FEATURES.querySide);
}

/** The longer side a window of a query is described at, as a picture of its own would be (window-features.ts). */
export function windowDescribeSide(image: { width: number; height: number }): number {
  return describedSide(image, LOCAL_FEATURES.windowSide);
}

/** The image's longer side, enlarged to at least `queryMinSide` and shrunk to at most `maxSide`. */
function describedSide(image: { width: number; height: number }, maxSide: number): number {
  return Math.min(maxSide, Math.max(LOCAL_FEATURES.queryMinSide, image.width, image.height));
}

/**
 * Byte layout: u16 width, u16 height, u16 count, then count × (u16 x, u16 y) in 1/8 pixel, then the
 * descriptors. About 36 bytes per keypoint.
 */
export function packLocalFeatures(f: LocalFeatures): Uint8Array {
  const out = new Uint8Array(6 + f.count * 4 + f.count * DESCRIPTOR_BYTES);
  const view = new DataView(out.buffer);
  view.setUint16(0, f.width, true);
  view.setUint16(2, f.height, true);
  view.setUint16(4, f.count, true);
  for (let i = 0; i < f.count; i++) {
    view.setUint16(6 + 4 * i, Math.round(f.points[2 * i]! * 8), true);
    view.setUint16(8 + 4 * i, Math.round(f.points[2 * i + 1]! * 8), true);
  }
  out.set(f.descriptors.subarray(0, f.count * DESCRIPTOR_BYTES), 6 + f.count * 4);
  return out;
}

/** The packed features of a picture without keypoints: re-ranking verifies nothing against it. */
export const NO_LOCAL_FEATURES: Uint8Array = packLocalFeatures({ width: 0, height: 0, count: 0, points: new Float32Array(0), descriptors: new Uint8Array(0) });

export function unpackLocalFeatures(bytes: Uint8Array): LocalFeatures {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 6) throw new Error('local features: truncated header');
  const width = view.getUint16(0, true);
  const height = view.getUint16(2, true);
  const count = view.getUint16(4, true);
  if (bytes.byteLength !== 6 + count * (4 + DESCRIPTOR_BYTES)) throw new Error('local features: wrong length');
  const points = new Float32Array(count * 2);
  for (let i = 0; i < count; i++) {
    points[2 * i] = view.getUint16(6 + 4 * i, true) / 8;
    points[2 * i + 1] = view.getUint16(8 + 4 * i, true) / 8;
  }
  // Copied so the descriptors start 4-byte aligned (the Hamming kernels read 32-bit words).
  const descriptors = bytes.slice(6 + count * 4);
  return { width, height, count, points, descriptors };
}
