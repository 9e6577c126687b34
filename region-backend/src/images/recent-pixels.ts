/**
 * The pixels of pictures just stored or just embedded, by blob key, for the work that follows in this process
 * (a search service's first pass, then its second), so it need not decode the stored copy again. An optimisation only: bounded in bytes
 * and in age, each entry taken once, and nothing is lost when an entry is missing (after a restart, in another
 * process, or refused because the cache was full): the taker decodes the stored copy, which gives the same
 * pixels. When full, new entries are refused rather than old ones evicted: the takers work oldest first.
 */
import type { RgbImage } from './rgb-image.js';

interface Entry {
  pixels: RgbImage;
  at: number;
}

export class RecentPixels {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    /** Total pixel bytes held (IRIS_RECENT_PIXELS_MB); 0 holds nothing. */
    readonly maxBytes: number,
    /** Entries older than this are dropped (nobody took them: the set has no service, or it runs elsewhere). */
    readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps the pixels of a stored blob, unless they would not fit. */
  put(blobKey: string, pixels: RgbImage): boolean {
    this.expire();
    const size = pixels.data.byteLength;
    if (this.entries.has(blobKey) || this.bytes + size > this.maxBytes) return false;
    this.entries.set(blobKey, { pixels, at: this.now() });
    this.bytes += size;
    return true;
  }

  /** The pixels of a blob, removed from the cache (the caller may hand their memory to another thread). */
  take(blobKey: string): RgbImage | undefined {
    const entry = this.entries.get(blobKey);
    if (!entry) return undefined;
    this.entries.delete(blobKey);
    this.bytes -= entry.pixels.data.byteLength;
    return this.now() - entry.at <= this.maxAgeMs ? entry.pixels : undefined;
  }

  /** Drops the entries past their age (else only a put does, and memory stays held while nothing comes). */
  dropExpired(): void {
    this.expire();
  }

  /** Pixel bytes held. */
  get size(): number {
    return this.bytes;
  }

  private expire(): void {
    const oldest = this.now() - this.maxAgeMs;
    // Insertion order is age order.
    for (const [key, entry] of this.entries) {
      if (entry.at >= oldest) break;
      this.entries.delete(key);
      this.bytes -= entry.pixels.data.byteLength;
    }
  }
}
