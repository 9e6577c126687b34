/**
 * One image of a data set: fetched with the one SSRF-safe fetcher, normalised (upright JPEG, bounded size)
 * and kept in the blob store under its content key. Failures are sorted into transient (retry later) and
 * permanent (the record fails at once).
 */
import { ImageDecodeError, ImageFetchError } from '../../images/image-errors.js';
import { fetchImage } from '../../images/image-fetcher.js';
import type { ImageConfig } from '../../images/image-config.js';
import { jpegFrameSize } from '../../images/jpeg-metadata.js';
import type { StoredImage } from '../../images/image-decoder.js';
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
  /**
   * Told the stored copy's pixels when decoding it gave them (a JPEG kept as it came), after it is stored;
   * pixels in a slot of `slots` belong to it from then on.
   */
  pixels?: (blobKey: string, pixels: RgbImage) => void;
  /** Where the decode thread writes those pixels (a pixel arena's slot, from the table they go to), if it has room. */
  slots?: PixelSlots;
}

/** Slots of shared memory for decoded pixels (RecentPixels over its arena). */
export interface PixelSlots {
  slot(bytes: number): Uint8Array | undefined;
  release(pixels: Pick<RgbImage, 'data'>): void;
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
      return await storeImage(blobs, config, decoder, fetched.bytes, { ...(pixels ? { pixels, slots: recent } : {}), ...options });
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
  const { slots } = options;
  const slot = options.pixels && slots ? slotFor(slots, bytes, config.storedMaxSide) : undefined;
  let stored: StoredImage;
  try {
    stored = await decoder.forStorage(bytes, { maxSide: config.storedMaxSide, ...(slot ? { pixelsInto: slot } : {}) });
  } catch (err) {
    if (slot) releaseAfter(decoder.slotFreeAfter(err), () => slots!.release({ data: slot }));
    throw err;
  }
  if (slot && !stored.pixelsInSlot) slots!.release({ data: slot });
  let pixels = slot && stored.pixelsInSlot ? { data: slot, width: stored.width, height: stored.height } : stored.pixels;
  try {
    await options.admit?.();
    const blobKey = await blobs.put(stored.bytes);
    if (pixels) options.pixels?.(blobKey, pixels);
    pixels = undefined;
    return { blobKey, width: stored.width, height: stored.height, bytes: stored.bytes.byteLength };
  } finally {
    // Not handed on (refused by the quota, or the write failed): the slot goes back.
    if (pixels) slots?.release(pixels);
  }
}

/** A slot the size the JPEG's header states, when it is one and could be kept as it came (no larger than the stored side). */
function slotFor(slots: PixelSlots, bytes: Uint8Array, storedMaxSide: number): Uint8Array | undefined {
  const size = jpegFrameSize(bytes);
  return size && Math.max(size.width, size.height) <= storedMaxSide ? slots.slot(size.width * size.height * 3) : undefined;
}

function releaseAfter(ms: number, release: () => void): void {
  if (ms <= 0) release();
  else setTimeout(release, ms).unref();
}
