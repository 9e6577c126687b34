/**
 * Decoding and view rendering for the embedder, with sharp (libvips): auto-orientation, alpha dropped,
 * sRGB, then one network input per view (whole image or a centre crop, squashed to a square or keeping the
 * aspect ratio, optionally mirrored).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import sharp, { type Sharp } from 'sharp';

/** How one network input is cut from the image. */
export interface ViewSpec {
  /** Side of the square input (`squash`), or of the shorter side (`aspect`, longer side capped at 2×). */
  size: number;
  fit: 'squash' | 'aspect';
  /** Keep only the centre: this fraction of width and of height (1 = whole image). */
  centre?: number;
  flip?: boolean;
  /**
   * Shrink the image first so that its longer side is at most this many pixels: the view then looks like a
   * thumbnail of the picture (indexed beside the sharp view, so small queries land near their source).
   */
  sourceSide?: number;
}

export type ImageInput = Uint8Array | RgbImage;

export interface DecodedImage {
  /** Pixels after orientation and the optional `loc` crop, at most MAX_WORKING_SIDE on the longer side. */
  rgb: RgbImage;
  /** Size of the whole image after orientation (before `loc`). */
  width: number;
  height: number;
}

/** Larger pictures are scaled down before their views are rendered. */
export const MAX_WORKING_SIDE = 1024;

export class ImageDecodeError extends Error {
  readonly code = 'image_decode_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageDecodeError';
  }
}

function isRgb(input: ImageInput): input is RgbImage {
  return !(input instanceof Uint8Array) && typeof input === 'object' && input !== null && 'data' in input;
}

/** `loc` = [x, y, w, h] as fractions of the image; clamped, and at least one pixel. */
export function locToPixels(loc: readonly number[], width: number, height: number): { left: number; top: number; width: number; height: number } {
  const [x = 0, y = 0, w = 1, h = 1] = loc.map((v) => (Number.isFinite(v) ? v : 0));
  const left = Math.min(width - 1, Math.max(0, Math.floor(x * width)));
  const top = Math.min(height - 1, Math.max(0, Math.floor(y * height)));
  const right = Math.min(width, Math.max(left + 1, Math.ceil((x + w) * width)));
  const bottom = Math.min(height, Math.max(top + 1, Math.ceil((y + h) * height)));
  return { left, top, width: right - left, height: bottom - top };
}

/** A sharp pipeline over decoded 8-bit RGB pixels. */
export function sharpOfRgb(rgb: RgbImage): Sharp {
  return sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } });
}

/** The 8-bit RGB pixels a pipeline started by `sharpOfRgb` ends with. */
export async function rgbOfSharp(image: Sharp): Promise<RgbImage> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

export async function decodeImage(input: ImageInput, loc?: readonly number[]): Promise<DecodedImage> {
  let image: Sharp;
  let width: number;
  let height: number;
  try {
    if (isRgb(input)) {
      if (input.data.length !== input.width * input.height * 3) throw new Error('rgb data length is not width × height × 3');
      image = sharpOfRgb(input);
      ({ width, height } = input);
    } else {
      const meta = await sharp(input).metadata();
      if (!meta.width || !meta.height) throw new Error('image has no size');
      // EXIF orientations 5–8 swap width and height; `loc` refers to the image as a viewer shows it.
      const swap = (meta.orientation ?? 1) >= 5;
      width = swap ? meta.height : meta.width;
      height = swap ? meta.width : meta.height;
      // Truncated files are refused; minor warnings (common in web JPEGs) are not.
      image = sharp(input, { failOn: 'truncated' }).rotate();
    }
    if (loc) image = image.extract(locToPixels(loc, width, height));
    const { data, info } = await image
      .resize({ width: MAX_WORKING_SIDE, height: MAX_WORKING_SIDE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
    return { rgb: { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height }, width, height };
  } catch (err) {
    throw new ImageDecodeError(`cannot decode image: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export async function renderView(source: RgbImage, view: ViewSpec): Promise<RgbImage> {
  const rgb = view.sourceSide ? await shrunk(source, view.sourceSide) : source;
  let img = sharpOfRgb(rgb);
  let { width, height } = rgb;
  const centre = view.centre ?? 1;
  if (centre < 1) {
    const w = Math.max(1, Math.round(width * centre));
    const h = Math.max(1, Math.round(height * centre));
    img = img.extract({ left: Math.floor((width - w) / 2), top: Math.floor((height - h) / 2), width: w, height: h });
    width = w;
    height = h;
  }
  let outW = view.size;
  let outH = view.size;
  if (view.fit === 'aspect') {
    const ratio = Math.min(2, Math.max(width, height) / Math.min(width, height));
    const longSide = Math.round(view.size * ratio / 32) * 32;
    if (width >= height) outW = longSide;
    else outH = longSide;
  }
  img = img.resize({ width: outW, height: outH, fit: 'fill' });
  if (view.flip) img = img.flop();
  return rgbOfSharp(img);
}

/** The image with its longer side at most `side` pixels (area-averaged, as thumbnails are made). */
async function shrunk(rgb: RgbImage, side: number): Promise<RgbImage> {
  if (Math.max(rgb.width, rgb.height) <= side) return rgb;
  return rgbOfSharp(sharpOfRgb(rgb).resize({ width: side, height: side, fit: 'inside', kernel: 'lanczos3' }));
}

/** The normalised region [x, y, w, h] of an image (at least one pixel). */
export async function cropRgb(rgb: RgbImage, box: readonly number[]): Promise<RgbImage> {
  const region = locToPixels(box, rgb.width, rgb.height);
  return rgbOfSharp(sharpOfRgb(rgb).extract(region));
}
