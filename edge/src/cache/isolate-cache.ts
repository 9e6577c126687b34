/**
 * A small time-bounded cache that lives in the Worker isolate (module scope), so that the warm hot path
 * (known key, by-id check of a known resource) needs no D1 round trip. Entries expire after the configured
 * TTL (`EDGE_CACHE_TTL_MS`); every change made through this isolate (admin API, registry reports) deletes
 * the entries it affects at once, so staleness is bounded by the TTL only for changes made elsewhere.
 * Concurrent misses for one key share one load. The entry count is bounded (oldest inserted goes first).
 */
export interface CacheOptions {
  maxEntries: number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class IsolateCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, Promise<V | undefined>>();
  /** Bumped by every invalidation, so that a load started before it is not stored after it. */
  #generation = 0;

  constructor(private readonly options: CacheOptions) {}

  get size(): number {
    return this.#entries.size;
  }

  peek(key: string, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    while (this.#entries.size > this.options.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /**
   * The cached value, or the loader's. `undefined` (not found) is never stored, nor a value `keep` refuses,
   * so that something created elsewhere is seen at once.
   */
  async get(key: string, ttlMs: number, load: () => Promise<V | undefined>, keep: (value: V) => boolean = () => true): Promise<V | undefined> {
    const cached = this.peek(key);
    if (cached !== undefined) return cached;
    const inFlight = this.#loading.get(key);
    if (inFlight) return inFlight;
    const generation = this.#generation;
    const promise = load().finally(() => this.#loading.delete(key));
    this.#loading.set(key, promise);
    const value = await promise;
    if (value !== undefined && generation === this.#generation && keep(value)) this.set(key, value, ttlMs);
    return value;
  }

  delete(key: string): void {
    this.#generation++;
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  /** Deletes every entry whose key satisfies `match` (used when one account's state changes). */
  deleteWhere(match: (key: string, value: V) => boolean): void {
    this.#generation++;
    for (const [key, entry] of this.#entries) if (match(key, entry.value)) this.#entries.delete(key);
    this.#loading.clear();
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#loading.clear();
  }
}
