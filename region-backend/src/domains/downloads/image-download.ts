/**
 * One image of a data set: fetched with the one SSRF-safe fetcher, normalised (upright JPEG, bounded size)
 * and kept in the blob store under its content key. Failures are sorted into transient (retry later) and
 * permanent (the record fails at once).
 */
import { ImageDecodeError, ImageFetchError } from '../../images/image-errors.js';
import { fetchImage } from '../../images/image-fetcher.js';
import type { ImageConfig } from '../../images/image-config.js';
import type { RecentPixels } from '../../images/recent-pixels.js';
import type { RgbImage } from '../../images/rgb-image.js';
import type { ImageDecoderPool } from '../../inference/image-decoder-pool.js';
import { InferenceTimeoutError } from '../../inference/inference-pool.js';
import type { StoredBlob } from '../data-sets/record.repo.js';
import type { BlobWriter } from '../blob-gc/blob-writer.js';

export class DownloadFailure extends Error {
  constructor(
    message: string,
    /** True when trying again cannot help (404, not an image, forbidden address, too large …). */
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DownloadFailure';
  }
}

/** Storing the image would take the account over its stored-bytes quota (permanent for this record). */
export class StoredBytesExceeded extends DownloadFailure {
  constructor(readonly limit: number) {
    super(`stored-bytes quota (403/3010): the account's stored images reached ${limit} bytes`, true);
    this.name = 'StoredBytesExceeded';
  }
}

const TRANSIENT_STATUSES = new Set([408, 425, 429]);

export function classifyFailure(err: unknown): DownloadFailure {
  if (err instanceof DownloadFailure) return err;
  if (err instanceof ImageFetchError) {
    const transient =
      err.kind === 'timeout' || err.kind === 'network' || (err.kind === 'http-status' && (TRANSIENT_STATUSES.has(err.status ?? 0) || (err.status ?? 0) >= 500));
    return new DownloadFailure(err.message, !transient, { cause: err });
  }
  // A decode over its time limit says more about the machine's load than about the image (the pixel limits,
  // checked from the header, bound what decoding can cost): tried again, and final after the last attempt.
  if (err instanceof ImageDecodeError) return new DownloadFailure(err.message, !(err.cause instanceof InferenceTimeoutError), { cause: err });
  // Anything else (disk full, database hiccup) is ours, not the image's: try again later.
  return new DownloadFailure(err instanceof Error ? err.message : String(err), false, { cause: err });
}

export interface DownloadOptions {
  /** Called before the normalised copy is stored; throws (StoredBytesExceeded) to refuse it. */
  admit?: () => Promise<void>;
  /** Told the stored copy's pixels when decoding it gave them (a JPEG kept as it came), after it is stored. */
  pixels?: (blobKey: string, pixels: RgbImage) => void;
}

export type ImageDownloader = (url: string, options?: DownloadOptions) => Promise<StoredBlob>;

/**
 * The real downloader over the images module; throws DownloadFailure. The pixels of a picture decoded once
 * on its way to storage are kept in `recent` for its first embedding.
 */
export function imageDownloader(blobs: BlobWriter, config: ImageConfig, decoder: ImageDecoderPool, recent?: RecentPixels): ImageDownloader {
  const pixels = recent && ((blobKey: string, rgb: RgbImage) => void recent.put(blobKey, rgb));
  return async function downloadImage(url, options = {}) {
    try {
      const fetched = await fetchImage(url, config.fetch);
      return await storeImage(blobs, config, decoder, fetched.bytes, { ...(pixels ? { pixels } : {}), ...options });
    } catch (err) {
      throw classifyFailure(err);
    }
  };
}

/**
 * Bytes already in hand (a fetched or an uploaded picture) decoded under the pixel and time limits, normalised
 * and stored under their content key. Throws ImageDecodeError for what is not a picture.
 */
export async function storeImage(blobs: BlobWriter, config: Pick<ImageConfig, 'storedMaxSide'>, decoder: ImageDecoderPool, bytes: Uint8Array, options: DownloadOptions = {}): Promise<StoredBlob> {
  const stored = await decoder.forStorage(bytes, { maxSide: config.storedMaxSide });
  await options.admit?.();
  const blobKey = await blobs.put(stored.bytes);
  if (stored.pixels) options.pixels?.(blobKey, stored.pixels);
  return { blobKey, width: stored.width, height: stored.height, bytes: stored.bytes.byteLength };
}
