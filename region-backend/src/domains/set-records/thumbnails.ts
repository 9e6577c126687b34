/**
 * Thumbnails of stored pictures: the normalised blob (a JPEG of at most ~1024 px) shrunk to a square box,
 * made by sharp on libuv's thread pool under a pixel limit and a time limit, and kept in a small
 * in-process cache bounded by bytes (least recently used out first). Blobs are content-addressed, so a
 * thumbnail of one blob key never changes: the HTTP layer can cache it for long.
 */
import sharp from 'sharp';
import type { BlobStore } from '../../images/blob-store.js';
import type { ThumbnailSize } from './set-records.params.js';

const MAX_INPUT_PIXELS = 40_000_000;
const TIME_LIMIT_SECONDS = 10;

export class ThumbnailMaker {
  private readonly cache = new Map<string, Buffer>();
  private cachedBytes = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly maxCacheBytes = 32 * 1024 * 1024,
  ) {}

  /** The JPEG thumbnail of a blob, or null when the blob is gone. */
  async thumbnail(blobKey: string, size: ThumbnailSize): Promise<Buffer | null> {
    const key = `${size}:${blobKey}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const bytes = await this.blobs.get(blobKey);
    if (!bytes) return null;
    const made = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 })
      .timeout({ seconds: TIME_LIMIT_SECONDS })
      .rotate()
      .resize(size, size, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 78, mozjpeg: false })
      .toBuffer();
    this.remember(key, made);
    return made;
  }

  private remember(key: string, bytes: Buffer): void {
    if (bytes.length > this.maxCacheBytes / 4) return;
    this.cache.set(key, bytes);
    this.cachedBytes += bytes.length;
    for (const [oldKey, old] of this.cache) {
      if (this.cachedBytes <= this.maxCacheBytes) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= old.length;
    }
  }
}
