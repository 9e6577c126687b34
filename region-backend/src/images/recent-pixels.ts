/**
 * The pixels of pictures just stored or just embedded, by blob key, for the work that follows in this process
 * (a search service's first pass, then its second), so it need not decode the stored copy again. An optimisation only: bounded in bytes
 * and in age, each entry taken once, and nothing is lost when an entry is missing (after a restart, in another
 * process, or refused because the cache was full): the taker decodes the stored copy, which gives the same
 * pixels. When full, new entries are refused rather than old ones evicted, since the takers work oldest first;
 * but while nobody has taken anything for `staleMs`, entries older than that make room: pictures of a set that
 * nothing indexes here would otherwise fill the table and shut out the next set's until they expire.
 *
 * Producers can pace themselves by it (`reserveRoom`): while something here takes entries, a table full of
 * wanted pictures (a search service here embeds them) means the pictures already stored are ahead of their first
 * passes, and a picture stored now would not be kept. A wanted picture makes room by dropping pictures nobody
 * said they wanted (a set no service indexes), oldest first.
 * Takers take oldest first, so entries a take passes over by more than `staleMs` are dropped: another process
 * embeds them (or nothing does), and they would otherwise hold waiting producers back until they expire.
 *
 * With an arena (pixel-arena.ts), the pixels are kept in its shared memory: a table holds what it was given from
 * then on (an arena slot it refuses or drops is released), and whoever takes an entry holds its slot until it
 * hands it to another table of the same arena or `release`s it.
 */
import type { PixelArena } from './pixel-arena.js';
import type { RgbImage } from './rgb-image.js';

interface Entry {
  pixels: RgbImage;
  at: number;
  wanted: boolean;
}

export class RecentPixels {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bytes of the entries put as wanted. */
  private wantedBytes = 0;
  private lastTakenAt = -Infinity;
  /** Size of the last entry put: the room a producer waits for. */
  private lastPutBytes = 0;
  /** When a producer first found the table full since the last take: a taker has the stale time from then to show up. */
  private fullSince: number | undefined;
  /** Room held for producers that waited for it and have not put their picture yet. */
  private reserved = 0;
  /** Producers waiting for room, oldest first; each take wakes one. */
  private readonly waiters: (() => void)[] = [];

  constructor(
    /** Total pixel bytes held (IRIS_RECENT_PIXELS_MB); 0 holds nothing. */
    readonly maxBytes: number,
    /** Entries older than this are dropped (nobody took them: the set has no service, or it runs elsewhere). */
    readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
    /** When full and nothing was taken for this long, entries older than this make room for a new one (default: only expired ones do). */
    readonly staleMs: number = maxAgeMs,
    /** Where the pixels are kept (copied in unless they are a slot of it already); without one, as given. */
    private readonly arena?: PixelArena,
  ) {}

  /**
   * Keeps the pixels of a stored blob, unless they would not fit (or the arena has no slot for them); `wanted`
   * ones first drop entries that are not.
   */
  put(blobKey: string, pixels: RgbImage, wanted = false): boolean {
    const kept = this.admit(blobKey, pixels, wanted);
    if (!kept) this.arena?.release(pixels);
    return kept;
  }

  private admit(blobKey: string, pixels: RgbImage, wanted: boolean): boolean {
    this.expire();
    const size = pixels.data.byteLength;
    if (this.entries.has(blobKey) || size > this.maxBytes) return false;
    if (wanted) this.dropUnwanted(size);
    const stale = this.now() - this.staleMs;
    if (this.bytes + size > this.maxBytes && this.lastTakenAt < stale) this.dropOlderThan(stale, size);
    if (this.bytes + size > this.maxBytes) return false;
    const kept = !this.arena || this.arena.holds(pixels) ? pixels : this.arena.keep(pixels);
    if (!kept) return false;
    this.entries.set(blobKey, { pixels: kept, at: this.now(), wanted });
    this.bytes += size;
    if (wanted) this.wantedBytes += size;
    this.lastPutBytes = size;
    return true;
  }

  /**
   * The pixels of a blob, removed from the cache (the caller may hand their memory to another thread); the caller
   * holds them until it puts them in a table or `release`s them.
   */
  take(blobKey: string): RgbImage | undefined {
    const entry = this.entries.get(blobKey);
    if (!entry) return undefined;
    this.remove(blobKey, entry, false);
    if (this.now() - entry.at > this.maxAgeMs) {
      this.release(entry.pixels);
      return undefined;
    }
    this.lastTakenAt = this.now();
    this.fullSince = undefined;
    // Takers go oldest first: what they passed over by more than the stale time is taken elsewhere or not at all.
    this.dropOlderThan(entry.at - this.staleMs);
    return entry.pixels;
  }

  /**
   * Waits for room for a wanted picture the size of the last one put, and holds that room until the returned
   * function is called (after the producer has put its picture, or given up on it). The wait ends early once nothing
   * takes entries here (nothing was taken for `staleMs`, counted from the first time a producer found the table
   * full after the last take, if that was later: a taker gets that long to show up; after it, the table holds no
   * producer back until something takes again), when `signal` aborts, or after `maxWaitMs`. Each take wakes one waiter, oldest first, so waiting producers go on
   * at the pace entries are taken, and no more of them than the table has room for.
   */
  async reserveRoom(maxWaitMs: number, signal?: AbortSignal): Promise<() => void> {
    const until = Date.now() + maxWaitMs;
    while (!this.roomOrNobodyTaking() && !signal?.aborted) {
      const left = until - Date.now();
      if (left <= 0) break;
      // Without a take, the wait ends when the taker counts as gone or the wait is over, whichever is first.
      const untilIdle = this.takerDueBy() - this.now();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          const at = this.waiters.indexOf(done);
          if (at >= 0) this.waiters.splice(at, 1);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, Math.min(left, untilIdle + 1)));
        signal?.addEventListener('abort', done, { once: true });
        this.waiters.push(done);
      });
    }
    const held = this.lastPutBytes;
    this.reserved += held;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved -= held;
      this.waiters.shift()?.();
    };
  }

  /** Gives back pixels taken from this table (their arena slot, if they have one), once nothing reads them. */
  release(pixels: Pick<RgbImage, 'data'>): void {
    this.arena?.release(pixels);
  }

  /**
   * A slot of the arena for a decode thread to write a picture's pixels into before they are put here (none
   * without an arena, or for more than the table could hold); `release` it if they are not put.
   */
  slot(bytes: number): Uint8Array | undefined {
    return bytes <= this.maxBytes ? this.arena?.allocate(bytes) : undefined;
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

  private roomOrNobodyTaking(): boolean {
    this.expire();
    // Entries a put would drop for room (nothing taken for the stale time) hold nobody back either.
    const stale = this.now() - this.staleMs;
    if (this.lastTakenAt < stale) this.dropOlderThan(stale, this.reserved + this.lastPutBytes);
    if (this.wantedBytes + this.reserved + this.lastPutBytes <= this.maxBytes) return true;
    this.fullSince ??= this.now();
    return this.now() >= this.takerDueBy();
  }

  /** A taker that has taken nothing by then, since the last take or since the table filled after it, counts as gone. */
  private takerDueBy(): number {
    return Math.max(this.lastTakenAt, this.fullSince ?? -Infinity) + this.staleMs;
  }

  /** Pixel bytes held. */
  get size(): number {
    return this.bytes;
  }

  /** Pictures held. */
  get count(): number {
    return this.entries.size;
  }

  private expire(): void {
    this.dropOlderThan(this.now() - this.maxAgeMs);
  }

  /** Drops entries put before `oldest`, oldest first, until `room` bytes are free (all of them by default). */
  private dropOlderThan(oldest: number, room = Infinity): void {
    // Insertion order is age order.
    for (const [key, entry] of this.entries) {
      if (entry.at >= oldest || this.maxBytes - this.bytes >= room) break;
      this.remove(key, entry);
    }
  }

  /** Drops entries nobody said they wanted, oldest first, until `room` bytes are free. */
  private dropUnwanted(room: number): void {
    for (const [key, entry] of this.entries) {
      if (this.maxBytes - this.bytes >= room) break;
      if (!entry.wanted) this.remove(key, entry);
    }
  }

  /** Frees an entry's bytes (and its arena slot, unless it is being taken) and lets the oldest waiting producer look again. */
  private remove(key: string, entry: Entry, release = true): void {
    this.entries.delete(key);
    if (release) this.arena?.release(entry.pixels);
    this.bytes -= entry.pixels.data.byteLength;
    if (entry.wanted) this.wantedBytes -= entry.pixels.data.byteLength;
    this.waiters.shift()?.();
  }
}
