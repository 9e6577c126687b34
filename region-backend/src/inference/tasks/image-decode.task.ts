/**
 * `image-decode`: every decode of untrusted image bytes (probe → pixel check → decode) runs here, on a
 * decode thread that the pool terminates when it runs past its time limit (see image-decoder-pool.ts).
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { decodeReference, type DecodedReference } from '../../vision/logo/reference-image.js';
import { decodeImage, normaliseForStorage, type DecodeOptions, type StorageOptions, type StoredImage } from '../../images/image-decoder.js';

export type ImageDecodePayload =
  | { op: 'rgb'; bytes: Uint8Array; options: DecodeOptions }
  | { op: 'store'; bytes: Uint8Array; options: StorageOptions & { maxPixels: number } }
  | { op: 'reference'; bytes: Uint8Array; maxPixels: number };

export type ImageDecodeResult = RgbImage | StoredImage | DecodedReference;

export default async function imageDecodeTask(p: ImageDecodePayload): Promise<ImageDecodeResult> {
  if (!(p?.bytes instanceof Uint8Array)) throw new TypeError('image-decode needs bytes');
  switch (p.op) {
    case 'rgb':
      return decodeImage(p.bytes, p.options);
    case 'store':
      return normaliseForStorage(p.bytes, p.options);
    case 'reference': {
      const decoded = await decodeReference(p.bytes, p.maxPixels);
      // A Buffer arrives as a plain Uint8Array on the other side; send one that owns its memory.
      return { rgba: decoded.rgba, png: Buffer.from(decoded.png) };
    }
    default:
      throw new TypeError(`unknown image-decode op ${(p as { op: unknown }).op}`);
  }
}
