/**
 * Decoding of downloaded or uploaded images with sharp (libvips, off the event loop): header probes,
 * RGB pixels for models, and the normalised JPEG copy that indexing and training read later. The format
 * is sniffed first and only known raster formats reach libvips; the pixel count is checked from the
 * header before any pixel is decoded, so a small file that declares a huge canvas costs nothing.
 */
import { movablePixels, type RgbImage } from './rgb-image.js';
import sharp, { type Sharp } from 'sharp';
import { decodeBmp, readBmpHeader } from './bmp-decoder.js';
import { ImageDecodeError } from './image-errors.js';
import { describeUnsupported, sniffImageFormat, type ImageFormat } from './image-format.js';
import { stripJpegMetadata } from './jpeg-metadata.js';
import { locToPixels, type Loc } from './loc.js';

export { ImageDecodeError, type ImageDecodeErrorKind } from './image-errors.js';
export { parseLoc, type Loc } from './loc.js';

/** 100 megapixels: a 10000×10000 photo decodes, a 30000×30000 canvas does not. */
export const DEFAULT_MAX_PIXELS = 100_000_000;
export const DEFAULT_STORAGE_MAX_SIDE = 1024;
export const DEFAULT_STORAGE_QUALITY = 90;
/**
 * A JPEG is stored as it came (metadata stripped) only up to this many bytes per pixel: about quality 95 for
 * photos; a larger file (quality 100, a hostile padding of the scans) is re-encoded.
 */
export const KEPT_JPEG_MAX_BYTES_PER_PIXEL = 0.75;

export interface ImageProbe {
  format: ImageFormat;
  /** Size as displayed, i.e. after EXIF orientation. */
  width: number;
  height: number;
  /** Frames in an animated GIF/WebP (1 otherwise); only the first is ever decoded. */
  pages: number;
  hasAlpha: boolean;
  /** EXIF orientation (1: upright). */
  orientation: number;
  /** Whether the file embeds an ICC profile. */
  hasIcc: boolean;
  /** Colour space and channels as stored (libvips' names: 'srgb', 'b-w', 'cmyk' …). */
  space: string;
  channels: number;
}

export interface DecodeOptions {
  maxPixels: number;
  /** Region to keep, as fractions of the oriented image (see parseLoc). */
  crop?: Loc;
  /** Longest side of the result; larger images are scaled down, smaller ones are left as they are. */
  maxSide?: number;
  /** Smallest acceptable side of the (cropped) image before scaling; default 1. */
  minSide?: number;
}

export interface StoredImage {
  bytes: Uint8Array;
  width: number;
  height: number;
  format: 'jpeg';
  /**
   * The stored copy's pixels exactly as decoding `bytes` gives them (upright 8-bit sRGB), when the copy is
   * the downloaded JPEG itself and was decoded to check it: later work can start from them instead of
   * decoding the stored copy again. Absent for a re-encoded copy.
   */
  pixels?: RgbImage;
  /** Those pixels were written into the `pixelsInto` slot given (shared memory) instead of coming back as `pixels`. */
  pixelsInSlot?: true;
}

export interface StorageOptions {
  maxSide?: number;
  quality?: number;
  maxPixels?: number;
  keepJpeg?: boolean;
  /** Where to write the pixels of a JPEG kept as it came, when they are exactly this many bytes (a pixel arena's slot). */
  pixelsInto?: Uint8Array;
}

function formatOf(bytes: Uint8Array): ImageFormat {
  const format = sniffImageFormat(bytes);
  if (format) return format;
  const known = describeUnsupported(bytes);
  throw new ImageDecodeError('undecodable', known ? `${known} is not a supported image format` : 'the data is not a supported image (JPEG, PNG, GIF, WebP, BMP, TIFF, AVIF)');
}

function decodeFailure(err: unknown): ImageDecodeError {
  if (err instanceof ImageDecodeError) return err;
  const text = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(text)) return new ImageDecodeError('too-many-pixels', 'the image has too many pixels', { cause: err });
  return new ImageDecodeError('undecodable', 'the image data is corrupt or truncated', { cause: err });
}

/** Format, displayed size, frame count and alpha, read from the header without decoding pixels. */
export async function probeImage(bytes: Uint8Array): Promise<ImageProbe> {
  const format = formatOf(bytes);
  if (format === 'bmp') {
    const h = readBmpHeader(bytes);
    if (h.width <= 0 || h.height <= 0) throw new ImageDecodeError('undecodable', 'BMP: invalid dimensions');
    const hasAlpha = h.masks[3] !== 0;
    return { format, width: h.width, height: h.height, pages: 1, hasAlpha, orientation: 1, hasIcc: false, space: 'srgb', channels: hasAlpha ? 4 : 3 };
  }
  try {
    // Without `pages`, metadata describes the first frame only; autoOrient swaps sides for EXIF 5–8.
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new ImageDecodeError('undecodable', 'the image header has no size');
    return {
      format,
      width,
      height,
      pages: meta.pages ?? 1,
      hasAlpha: meta.hasAlpha ?? false,
      orientation: meta.orientation ?? 1,
      hasIcc: meta.icc !== undefined,
      space: meta.space ?? '',
      channels: meta.channels ?? 0,
    };
  } catch (err) {
    throw decodeFailure(err);
  }
}

function checkPixels(probe: ImageProbe, maxPixels: number): void {
  if (probe.width * probe.height > maxPixels) {
    throw new ImageDecodeError(
      'too-many-pixels',
      `the image is ${probe.width}×${probe.height} pixels; at most ${Math.round(maxPixels / 1e6)} megapixels are accepted`,
    );
  }
}

/** A sharp pipeline over the first frame, upright, with the pixel limit enforced by libvips as well. */
function open(bytes: Uint8Array, probe: ImageProbe, maxPixels: number): Sharp {
  if (probe.format === 'bmp') {
    const bmp = decodeBmp(bytes);
    return sharp(bmp.data, { raw: { width: bmp.width, height: bmp.height, channels: bmp.channels } });
  }
  // failOn 'error': truncated or corrupt data fails, harmless warnings (extra bytes after the end) do not.
  return sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 }).autoOrient();
}

/** Decodes to 8-bit RGB: oriented, first frame, alpha flattened on white, optionally cropped and scaled. */
export async function decodeImage(bytes: Uint8Array, options: Partial<DecodeOptions> = {}): Promise<RgbImage> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const probe = await probeImage(bytes);
  checkPixels(probe, maxPixels);
  const region = options.crop ? locToPixels(options.crop, probe.width, probe.height) : { width: probe.width, height: probe.height };
  const minSide = options.minSide ?? 1;
  if (Math.min(region.width, region.height) < minSide) {
    throw new ImageDecodeError('too-small', `the image${options.crop ? ' region' : ''} is ${region.width}×${region.height} pixels; at least ${minSide} pixels per side are needed`);
  }
  try {
    let pipeline = open(bytes, probe, maxPixels);
    if (options.crop) pipeline = pipeline.extract(region as { left: number; top: number; width: number; height: number });
    if (options.maxSide) pipeline = pipeline.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside', withoutEnlargement: true });
    const { data, info } = await pipeline
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new ImageDecodeError('undecodable', `unexpected ${info.channels}-channel output`);
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch (err) {
    throw decodeFailure(err);
  }
}

/**
 * The copy of an image the platform keeps: upright, sRGB, no metadata (no EXIF location), alpha on white,
 * longest side at most `maxSide`, baseline JPEG. Indexing and training read this instead of downloading again.
 * A JPEG that is already all of that (upright, sRGB without a profile, small enough) is kept as it came with
 * its metadata removed losslessly (jpeg-metadata.ts) and decoded once, here, to check it: no re-encoding, and
 * its pixels come back with it (`pixels`). `keepJpeg: false` re-encodes every picture.
 */
export async function normaliseForStorage(bytes: Uint8Array, options: StorageOptions = {}): Promise<StoredImage> {
  const maxSide = options.maxSide ?? DEFAULT_STORAGE_MAX_SIDE;
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const probe = await probeImage(bytes);
  checkPixels(probe, maxPixels);
  try {
    const kept = options.keepJpeg === false ? null : await keptJpeg(bytes, probe, maxSide, maxPixels, options.pixelsInto);
    if (kept) return kept;
    const { data, info } = await open(bytes, probe, maxPixels)
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      // Without mozjpeg's second, Huffman-optimising pass: half the normalisation's CPU for ~8% more bytes, same pixels.
      .jpeg({ quality: options.quality ?? DEFAULT_STORAGE_QUALITY, optimiseCoding: false })
      .toBuffer({ resolveWithObject: true });
    return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, format: 'jpeg' };
  } catch (err) {
    throw decodeFailure(err);
  }
}

/** Whether the downloaded bytes can be the stored copy as they are (metadata aside). */
function keepable(bytes: Uint8Array, probe: ImageProbe, maxSide: number): boolean {
  return (
    probe.format === 'jpeg' &&
    probe.pages === 1 &&
    probe.orientation === 1 &&
    !probe.hasIcc &&
    !probe.hasAlpha &&
    probe.space === 'srgb' &&
    probe.channels === 3 &&
    Math.max(probe.width, probe.height) <= maxSide &&
    bytes.length <= probe.width * probe.height * KEPT_JPEG_MAX_BYTES_PER_PIXEL
  );
}

/** The JPEG kept as it came, without metadata, with the pixels its stored bytes decode to; null if it cannot be. */
async function keptJpeg(bytes: Uint8Array, probe: ImageProbe, maxSide: number, maxPixels: number, pixelsInto?: Uint8Array): Promise<StoredImage | null> {
  if (!keepable(bytes, probe, maxSide)) return null;
  const stripped = stripJpegMetadata(bytes);
  if (!stripped) return null;
  // The stored bytes themselves are decoded (not the original), so `pixels` are theirs by construction.
  const { data, info } = await sharp(stripped, { limitInputPixels: maxPixels, failOn: 'error' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 || info.width !== probe.width || info.height !== probe.height) return null;
  if (pixelsInto?.byteLength === data.byteLength) {
    // The last thing this decode does: a slot is handed on as soon as the answer arrives.
    pixelsInto.set(data);
    return { bytes: stripped, width: info.width, height: info.height, format: 'jpeg', pixelsInSlot: true };
  }
  const pixels = movablePixels({ data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height });
  return { bytes: stripped, width: info.width, height: info.height, format: 'jpeg', pixels };
}
