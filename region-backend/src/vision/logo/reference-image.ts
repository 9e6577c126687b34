/**
 * Decoding of uploaded reference artwork: format sniffed and pixel count checked by the platform's decoder,
 * then upright RGBA (transparency kept: transparent margins are not part of the logo) at most 1024 px, plus
 * the PNG copy that is stored so features can be extracted again later.
 */
import sharp, { type Sharp } from 'sharp';
import { decodeImage, DEFAULT_MAX_PIXELS, ImageDecodeError, probeImage } from '../../images/image-decoder.js';
import type { RgbaImage } from './logo-features.js';

export const REFERENCE_STORE_SIDE = 1024;

export interface DecodedReference {
  rgba: RgbaImage;
  png: Buffer;
}

/** Runs on a decode thread (inference/tasks/image-decode.task.ts), never on the request event loop. */
export async function decodeReference(bytes: Uint8Array, maxPixels = DEFAULT_MAX_PIXELS): Promise<DecodedReference> {
  const probe = await probeImage(bytes);
  if (probe.width * probe.height > maxPixels) throw new ImageDecodeError('too-many-pixels', 'the reference image has too many pixels');
  let pipeline: Sharp;
  if (probe.format === 'bmp') {
    const rgb = await decodeImage(bytes, { maxSide: REFERENCE_STORE_SIDE, maxPixels });
    pipeline = sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } });
  } else {
    pipeline = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 })
      .autoOrient()
      .resize({ width: REFERENCE_STORE_SIDE, height: REFERENCE_STORE_SIDE, fit: 'inside', withoutEnlargement: true });
  }
  try {
    const { data, info } = await pipeline.toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new ImageDecodeError('undecodable', `unexpected ${info.channels}-channel output`);
    const rgba: RgbaImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }).png({ compressionLevel: 6 }).toBuffer();
    return { rgba, png };
  } catch (err) {
    if (err instanceof ImageDecodeError) throw err;
    throw new ImageDecodeError('undecodable', 'the reference image data is corrupt or truncated', { cause: err });
  }
}
