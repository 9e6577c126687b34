/**
 * The pixels of pictures just stored or just embedded, by blob key, for the work that follows in this process
 * (a search service's first pass, then its second), so it need not decode the stored copy again. An optimisation only: bounded in bytes
 * and in age, each entry taken once, and nothing is lost when an entry is missing (after a restart, in another
 * process, or refused because the cache was full): the taker decodes the stored copy, which gives the same
 * pixels. When full, new entries are refused rather than old ones evicted, since the takers work oldest first;
 * but while nobody has taken anything for `staleMs`, entries older than that make room: pictures of a set that
 * nothing indexes here would otherwise fill the table and shut out the next set's until they expire.
 */
import type { RgbImage } from './rgb-image.js';

interface Entry {
  pixels: RgbImage;
  at: number;
}

export class RecentPixels {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private lastTakenAt = -Infinity;

  constructor(
    /** Total pixel bytes held (IRIS_RECENT_PIXELS_MB); 0 holds nothing. */
    readonly maxBytes: number,
    /** Entries older than this are dropped (nobody took them: the set has no service, or it runs elsewhere). */
    readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
    /** When full and nothing was taken for this long, entries older than this make room for a new one (default: only expired ones do). */
    readonly staleMs: number = maxAgeMs,
  ) {}

  /** Keeps the pixels of a stored blob, unless they would not fit. */
  put(blobKey: string, pixels: RgbImage): boolean {
    this.expire();
    const size = pixels.data.byteLength;
    if (this.entries.has(blobKey) || size > this.maxBytes) return false;
    const stale = this.now() - this.staleMs;
    if (this.bytes + size > this.maxBytes && this.lastTakenAt < stale) this.dropOlderThan(stale, size);
    if (this.bytes + size > this.maxBytes) return false;
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
    if (this.now() - entry.at > this.maxAgeMs) return undefined;
    this.lastTakenAt = this.now();
    return entry.pixels;
  }

  /** Whether some bytes are free (a picture may still not fit; put says). */
  hasRoom(): boolean {
    this.expire();
    return this.bytes < this.maxBytes;
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
    this.dropOlderThan(this.now() - this.maxAgeMs);
  }

  /** Drops entries put before `oldest`, oldest first, until `room` bytes are free (all of them by default). */
  private dropOlderThan(oldest: number, room = Infinity): void {
    // Insertion order is age order.
    for (const [key, entry] of this.entries) {
      if (entry.at >= oldest || this.maxBytes - this.bytes >= room) break;
      this.entries.delete(key);
      this.bytes -= entry.pixels.data.byteLength;
    }
  }
}
