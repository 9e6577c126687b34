/**
 * The in-memory HNSW indexes of the search services this process serves, persisted under
 * `<cacheDir>/indexes/<service id>` (a cache: any process rebuilds it). PostgreSQL holds what each index must contain (search_index_items, a
 * change feed with its own seq); a process loads its saved copy and applies the items changed since the seq
 * the copy was saved at, or rebuilds from the stored embeddings when the copy is missing, corrupt, made with
 * another embedding pipeline, or older than the item tombstones still kept.
 *
 * Indexes load on demand (the first query of a service) and stay under a memory budget: past it, the
 * least recently used indexes no query is using are saved (when changed) and evicted; the next query of an
 * evicted service loads its file again. The budget holds: a query whose index does not fit beside the indexes
 * other queries are using (or alone) is refused with 503 (busy, retry later) in the search family's shape, and
 * the index it loaded is dropped. The size of every index evicted or refused is remembered: room is made for it
 * before it loads again, or the query is refused without loading it. Only an index never loaded by the process
 * can pass the budget, by its own size, while it loads. Indexes that do not fit a process belong in pgvector.
 *
 * A process configured for another in-process store than the one that saved a service's file (hnsw → usearch)
 * serves from the saved file with the store that wrote it and builds the configured one beside it from the
 * stored embeddings, as for an embedder change; the old file is replaced by the new store's first save.
 *
 * Several processes may share one cache directory: the holder of its writer lease (index-writer.ts) saves,
 * the others only read saved files (their copies are rebuilt or caught up from PostgreSQL like any other).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '@iris/shared';
import { dimOfPipeline } from '../../vision/embedding/embedder-identity.js';
import type { HnswParams } from '../../vectors/hnsw-vector-store.js';
import { createServiceStore, type VectorBackend } from '../../vectors/open-vector-store.js';
import { savedStoreOf } from '../../vectors/store-files.js';
import type { VectorItem, VectorStore } from '../../vectors/vector-store.js';
import { productAttributes } from '../search/product-filter.js';
import { bytesToVector } from './embedding-pipeline.js';
import { itemChanges, liveItems, type ItemChange } from './index-items.repo.js';
import { IndexWriterClaim } from './index-writer.js';
import { serviceState, type ServiceState } from './search-service.repo.js';

const PAGE = 4000;
/** Index changes applied between two yields to the event loop. */
const SLICE = 500;

/** The service was deleted while its index was being loaded. */
export class ServiceGoneError extends Error {
  constructor(serviceId: string) {
    super(`search service ${serviceId} no longer exists`);
    this.name = 'ServiceGoneError';
  }
}

interface Entry {
  serviceId: string;
  pipeline: string;
  store: VectorStore;
  /** The item seq applied so far (mutations held during a save count as applied: they are queued in order). */
  appliedSeq: number;
  /** How the index was obtained at load: its saved file (then caught up), or a rebuild from the stored embeddings. */
  origin: 'file' | 'rebuild' | null;
  ready: Promise<void>;
  syncing: Promise<number> | null;
  dirty: boolean;
  savedAt: number;
  /** When a query last used the index (least recently used goes first). */
  usedAt: number;
  /** Queries using the index right now: it is not evicted meanwhile. */
  pins: number;
  /** Replaced by the index of the service's new pipeline: never saved again, closed when no query uses it. */
  retired: boolean;
  /** Loaded at least once (an index that can keep serving while its successor is built). */
  loaded: boolean;
  /** A retired entry's store was closed. */
  closed: boolean;
}

export interface ServiceIndexesOptions {
  pool: pg.Pool;
  /** This process's cache directory (IRIS_CACHE_DIR): index files under `indexes/`. */
  cacheDir: string;
  /** This process's identity: the holder of the writer lease. */
  instanceId: string;
  log: FastifyBaseLogger;
  params?: Partial<HnswParams>;
  /** A changed index is saved at most this often (and when the process closes). */
  saveEveryMs?: number;
  /** Estimated bytes all loaded indexes may hold together (IRIS_INDEX_MEMORY_MB); default unbounded. */
  memoryBudgetBytes?: number;
  /** In-process HNSW indexes (default), or a pgvector database shared by every process (nothing in memory). */
  vectors?: VectorBackend;
}

export class ServiceIndexes {
  private readonly entries = new Map<string, Entry>();
  /** Indexes of a service's new pipeline being built while its current entry keeps serving. */
  private readonly pending = new Map<string, Entry>();
  /** Bytes of indexes last evicted or refused (what they will take when they load again), at their item seq. */
  private readonly knownSizes = new Map<string, { bytes: number; seq: number }>();
  /** Bytes of indexes being loaded, by the size they had when last seen. */
  private reserved = 0;
  private closed = false;
  private readonly claim: IndexWriterClaim;
  private evicting: Promise<void> = Promise.resolve();
  /** Indexes evicted under the memory budget since the process started. */
  evictions = 0;
  /** Indexes loaded into memory (from their file, or rebuilt) since the process started. */
  loads = 0;

  constructor(private readonly options: ServiceIndexesOptions) {
    this.claim = new IndexWriterClaim({ pool: options.pool, indexesDir: path.join(options.cacheDir, 'indexes'), holder: options.instanceId, log: options.log });
  }

  dirOf(serviceId: string): string {
    return path.join(this.options.cacheDir, 'indexes', serviceId);
  }

  /** Services whose index this process holds. */
  get loaded(): string[] {
    return [...this.entries.keys()];
  }

  /** Estimated bytes of the loaded indexes. */
  get memoryBytes(): number {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.store.stats().estimatedBytes;
    return total;
  }

  /** What this process holds for a service (diagnostics and tests), or null when it holds nothing. */
  describe(serviceId: string): { kind: VectorStore['kind']; size: number; seq: number; origin: 'file' | 'rebuild' | null; bytes: number } | null {
    const entry = this.entries.get(serviceId);
    return entry
      ? { kind: entry.store.kind, size: entry.store.size, seq: entry.appliedSeq, origin: entry.origin, bytes: entry.store.stats().estimatedBytes }
      : null;
  }

  /**
   * Runs `fn` with the service's index, loaded (from its file when evicted) and caught up at least to
   * `state.index_seq`; the index is not evicted while `fn` runs.
   */
  async use<T>(state: ServiceState, fn: (store: VectorStore, pipeline: string) => Promise<T> | T): Promise<T> {
    const entry = await this.pinned(state);
    try {
      return await fn(entry.store, entry.pipeline);
    } finally {
      entry.pins--;
      entry.usedAt = performance.now();
      if (entry.retired && entry.pins === 0) await this.closeRetired(entry);
    }
  }

  /**
   * The pipeline `use` would answer from now: the service's, or while the index of a new pipeline is being
   * built in this process, the one still serving.
   */
  servingPipeline(state: ServiceState): string {
    const entry = this.entries.get(state.id);
    return entry && entry.pipeline !== state.pipeline && this.canServeWhileSwitching(entry) ? entry.pipeline : state.pipeline;
  }

  /**
   * After an indexing run: the writing process brings the service's index file up to date (loading the index
   * under the memory budget; it is saved when due, evicted or closed), so later loads read a current file.
   */
  async keepFileCurrent(serviceId: string): Promise<void> {
    if (this.closed || !(await this.isWriter())) return;
    const state = await serviceState(this.options.pool, serviceId);
    try {
      if (state) await this.acquire(state);
    } catch (err) {
      // Over the memory budget now: the file is caught up from PostgreSQL when the index next loads.
      if (!(err instanceof ApiError)) throw err;
    }
  }

  /** The service's index, loaded and caught up (tests and tools; queries go through `use`). */
  async acquire(state: ServiceState): Promise<VectorStore> {
    const entry = await this.pinned(state);
    entry.pins--;
    return entry.store;
  }

  /** The entry of the service, loaded, caught up and pinned (the caller unpins). */
  private async pinned(state: ServiceState): Promise<Entry> {
    if (this.closed) throw new Error('search indexes are closed');
    let entry = this.entries.get(state.id);
    // An index of the store being replaced that is still loading is waited for: it serves once loaded.
    if (entry && (entry.pipeline !== state.pipeline || (entry.store.kind !== this.backend.kind && entry.loaded))) {
      if (this.canServeWhileSwitching(entry)) {
        // The service switched to another embedder (or the process to another store): its new index is built
        // beside this one, which answers (as it stands: its pipeline gets no more changes) until the new one is ready.
        this.startSwitch(state, entry);
        entry.usedAt = performance.now();
        entry.pins++;
        return entry;
      }
      await this.drop(state.id, false);
      entry = undefined;
    }
    let reservation = 0;
    if (!entry) {
      const backend = await this.backendOfSavedFile(state);
      // Another query of the service may have opened it while the saved file was read: one entry per service.
      entry = this.entries.get(state.id);
      if (!entry) {
        reservation = await this.makeRoom(state);
        entry = this.entries.get(state.id) ?? this.open(state, backend);
      }
    }
    entry.usedAt = performance.now();
    entry.pins++;
    try {
      await entry.ready.finally(() => {
        this.reserved -= reservation;
        reservation = 0;
      });
      while (entry.appliedSeq < state.index_seq || entry.appliedSeq < state.purged_seq) {
        const before = entry.appliedSeq;
        await this.sync(entry);
        if (entry.appliedSeq === before) break;
      }
      await this.enforceBudget(entry);
      await this.refuseOverBudget(entry, state);
      if (entry.store.kind !== this.backend.kind && this.canServeWhileSwitching(entry)) this.startSwitch(state, entry);
    } catch (err) {
      entry.pins--;
      throw err;
    }
    return entry;
  }

  private budgetRefusal(serviceId: string, bytes: number): ApiError {
    const budget = this.options.memoryBudgetBytes!;
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    return bytes > budget
      ? new ApiError('busy', `the index of search service ${serviceId} (${mb(bytes)}) is larger than this server's index memory (${mb(budget)}); retry later`)
      : new ApiError('busy', `the index memory of this server is in use by other queries; retry later`);
  }

  /** Bytes held by indexes queries are using, other than `serviceId`'s. */
  private pinnedBytesBesides(serviceId: string): number {
    let total = 0;
    for (const e of this.entries.values()) if (e.serviceId !== serviceId && e.pins > 0) total += e.store.stats().estimatedBytes;
    return total;
  }

  /**
   * Before an index loads: refuses the query when the index's known size does not fit beside the indexes in use
   * and those loading, else evicts unused ones to make room and reserves it; answers the bytes reserved.
   */
  private async makeRoom(state: ServiceState): Promise<number> {
    const budget = this.options.memoryBudgetBytes;
    let known = this.knownSizes.get(state.id)?.bytes;
    // Larger than the whole budget when last seen: tried again only once the service's items changed.
    if (known !== undefined && known > budget! && this.knownSizes.get(state.id)!.seq !== state.index_seq) known = undefined;
    if (budget === undefined || known === undefined) return 0;
    if (known + this.reserved + this.pinnedBytesBesides(state.id) > budget) throw this.budgetRefusal(state.id, known);
    this.reserved += known;
    try {
      await this.enforceBudget(null);
    } catch (err) {
      this.reserved -= known;
      throw err;
    }
    return known;
  }

  private rememberSize(entry: Entry): void {
    if (this.knownSizes.size >= 100_000) this.knownSizes.clear();
    this.knownSizes.set(entry.serviceId, { bytes: entry.store.stats().estimatedBytes, seq: entry.appliedSeq });
  }

  /**
   * After the others were evicted: when the loaded indexes still pass the budget and no other query uses this
   * one, it is dropped (saved first when changed) and the query refused. One in use by another query is in
   * memory anyway and serves.
   */
  private async refuseOverBudget(entry: Entry, state: ServiceState): Promise<void> {
    const budget = this.options.memoryBudgetBytes;
    if (budget === undefined || this.memoryBytes + this.reserved <= budget || entry.pins > 1) return;
    const bytes = entry.store.stats().estimatedBytes;
    this.rememberSize(entry);
    entry.pins--;
    try {
      if (entry.pins === 0) await this.evict(entry);
    } finally {
      entry.pins++; // the caller's catch unpins
    }
    throw this.budgetRefusal(state.id, bytes);
  }

  /** Evicts least recently used indexes (not in use, not `keep`) until the loaded and loading ones fit the budget. */
  private enforceBudget(keep: Entry | null): Promise<void> {
    const budget = this.options.memoryBudgetBytes;
    if (budget === undefined) return Promise.resolve();
    this.evicting = this.evicting.then(async () => {
      const sizes = new Map([...this.entries.values()].map((e) => [e, e.store.stats().estimatedBytes]));
      let total = [...sizes.values()].reduce((a, b) => a + b, this.reserved);
      const candidates = [...sizes.keys()].filter((e) => e !== keep).sort((a, b) => a.usedAt - b.usedAt);
      for (const victim of candidates) {
        if (total <= budget) break;
        if (victim.pins === 0 && (await this.evict(victim))) total -= sizes.get(victim)!;
      }
    });
    return this.evicting;
  }

  /** Saves (when changed) and forgets an index no query is using; false when it is in use after all. */
  private async evict(entry: Entry): Promise<boolean> {
    try {
      await entry.syncing?.catch(() => undefined);
      if (entry.dirty && entry.pins === 0) await this.save(entry);
      if (entry.pins > 0 || this.entries.get(entry.serviceId) !== entry) return false;
      this.rememberSize(entry);
      this.entries.delete(entry.serviceId);
      this.evictions++;
      await entry.store.close();
      this.options.log.debug({ serviceId: entry.serviceId }, 'search index evicted');
      return true;
    } catch (err) {
      this.options.log.warn({ err, serviceId: entry.serviceId }, 'evicting a search index failed');
      return false;
    }
  }

  /**
   * Brings this process in line with PostgreSQL, given the state of every service: catches up the indexes it
   * holds, drops those of deleted services (with their files). Others load when a query needs them.
   */
  async refresh(states: readonly ServiceState[]): Promise<void> {
    const byId = new Map(states.map((s) => [s.id, s]));
    for (const id of this.loaded) if (!byId.has(id)) await this.drop(id, true);
    for (const id of this.loaded) {
      if (this.closed) return;
      const state = byId.get(id)!;
      const entry = this.entries.get(id);
      if (!entry || (entry.pipeline === state.pipeline && entry.appliedSeq >= state.index_seq)) continue;
      await this.acquire(state).catch((err: unknown) => {
        if (!(err instanceof ServiceGoneError)) this.options.log.warn({ err, serviceId: state.id }, 'catching up a search index failed');
      });
    }
  }

  /** Saves indexes changed since their last save, at most every `saveEveryMs`. */
  async saveDue(force = false): Promise<void> {
    const every = this.options.saveEveryMs ?? 30_000;
    for (const entry of this.entries.values()) {
      if (!entry.dirty || (!force && Date.now() - entry.savedAt < every)) continue;
      await this.save(entry);
    }
  }

  /** Forgets a service's index (and, for a deleted service, its files). */
  async drop(serviceId: string, removeFiles: boolean): Promise<void> {
    const entry = this.entries.get(serviceId);
    this.entries.delete(serviceId);
    const pending = this.pending.get(serviceId);
    this.pending.delete(serviceId);
    if (pending) await pending.ready.catch(() => undefined);
    if (entry) {
      await entry.ready.catch(() => undefined);
      await entry.syncing?.catch(() => undefined);
      await (removeFiles ? entry.store.destroy() : entry.store.close());
    }
    if (removeFiles) await rm(this.dirOf(serviceId), { recursive: true, force: true });
  }

  /** Whether this process saves indexes in its cache directory now (one writer per directory). */
  isWriter(): Promise<boolean> {
    return this.claim.held().catch((err: unknown) => {
      this.options.log.warn({ err }, 'cannot claim the search index directory: indexes are not saved for now');
      return false;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of [...this.pending.values()]) await pending.ready.catch(() => undefined);
    this.pending.clear();
    for (const entry of [...this.entries.values()]) {
      await entry.ready.catch(() => undefined);
      await entry.syncing?.catch(() => undefined);
      if (entry.dirty) await this.save(entry).catch((err: unknown) => this.options.log.warn({ err, serviceId: entry.serviceId }, 'saving a search index failed'));
      await entry.store.close();
    }
    this.entries.clear();
    await this.claim.release();
  }

  private get backend(): VectorBackend {
    return this.options.vectors ?? { kind: 'hnsw' };
  }

  /**
   * The store to open a service's index with: the configured one, or the other in-process store when that one
   * saved the service's current file (it serves while the configured store is built beside it).
   */
  private async backendOfSavedFile(state: ServiceState): Promise<VectorBackend> {
    if (this.backend.kind === 'pgvector') return this.backend;
    const saved = await savedStoreOf(this.dirOf(state.id));
    const other = saved && saved.embeddingVersion === state.pipeline && saved.kind !== this.backend.kind ? saved.kind : undefined;
    return other === 'hnsw' || other === 'usearch' ? { kind: other } : this.backend;
  }

  private makeEntry(state: ServiceState, backend: VectorBackend = this.backend): Entry {
    const store = createServiceStore(backend, state.id, {
      dimension: dimOfPipeline(state.pipeline),
      embeddingVersion: state.pipeline,
      dir: this.dirOf(state.id),
      ...(this.options.params ? { params: this.options.params } : {}),
      onError: (err) => this.options.log.error({ err, serviceId: state.id }, 'search index update failed'),
    });
    return {
      serviceId: state.id, pipeline: state.pipeline, store, appliedSeq: 0, origin: null, ready: Promise.resolve(), syncing: null,
      dirty: false, savedAt: 0, usedAt: performance.now(), pins: 0, retired: false, loaded: false, closed: false,
    };
  }

  /** In-process indexes keep serving while their successor loads; a shared pgvector table cannot hold two. */
  private canServeWhileSwitching(entry: Entry): boolean {
    return entry.loaded && !entry.retired && this.backend.kind !== 'pgvector';
  }

  /** Builds the index of the service's new pipeline in the background, then puts it in place of `old`. */
  private startSwitch(state: ServiceState, old: Entry): void {
    if (this.pending.get(state.id)?.pipeline === state.pipeline) return;
    const next = this.makeEntry(state);
    this.pending.set(state.id, next);
    const started = performance.now();
    next.ready = this.load(next).then(
      async () => {
        if (this.pending.get(state.id) !== next || this.closed || this.entries.get(state.id) !== old) {
          await next.store.close();
          return;
        }
        this.pending.delete(state.id);
        next.loaded = true;
        old.retired = true;
        old.dirty = false;
        this.entries.set(state.id, next);
        if (old.pins === 0) await this.closeRetired(old);
        this.options.log.info({ serviceId: state.id, from: old.pipeline, to: next.pipeline, size: next.store.size, ms: Math.round(performance.now() - started) }, 'search index switched to its new pipeline');
      },
      async (err: unknown) => {
        if (this.pending.get(state.id) === next) this.pending.delete(state.id);
        await next.store.close().catch(() => undefined);
        this.options.log.warn({ err, serviceId: state.id }, 'building the index of a new pipeline failed: the old one keeps serving');
      },
    );
  }

  private async closeRetired(entry: Entry): Promise<void> {
    if (entry.closed) return;
    entry.closed = true;
    await entry.syncing?.catch(() => undefined);
    await entry.store.close().catch(() => undefined);
  }

  private open(state: ServiceState, backend: VectorBackend): Entry {
    const entry = this.makeEntry(state, backend);
    const store = entry.store;
    entry.ready = this.load(entry).then(() => {
      entry.loaded = true;
    }).catch(async (err: unknown) => {
      // Leave no half-loaded entry behind: the next acquire starts over.
      if (this.entries.get(state.id) === entry) this.entries.delete(state.id);
      await store.close().catch(() => undefined);
      throw err;
    });
    this.entries.set(state.id, entry);
    return entry;
  }

  private async load(entry: Entry): Promise<void> {
    const started = performance.now();
    this.loads++;
    const loaded = await entry.store.load();
    const state = await serviceState(this.options.pool, entry.serviceId);
    if (!state) throw new ServiceGoneError(entry.serviceId);
    if (loaded.status === 'loaded' && loaded.meta.changeSeq >= state.purged_seq && loaded.meta.changeSeq <= state.index_seq) {
      entry.appliedSeq = loaded.meta.changeSeq;
      entry.origin = 'file';
      entry.savedAt = Date.now();
      const applied = await this.sync(entry);
      this.options.log.info({ serviceId: entry.serviceId, size: entry.store.size, applied, ms: Math.round(performance.now() - started) }, 'search index loaded');
      return;
    }
    await this.rebuild(entry);
    entry.origin = 'rebuild';
    this.options.log.info(
      { serviceId: entry.serviceId, size: entry.store.size, because: loaded.status === 'loaded' ? 'stale' : loaded.status, ms: Math.round(performance.now() - started) },
      'search index rebuilt from stored embeddings',
    );
  }

  /** Applies item changes after the entry's seq (one run at a time per entry); returns how many. */
  private sync(entry: Entry): Promise<number> {
    entry.syncing ??= this.applyChanges(entry).finally(() => {
      entry.syncing = null;
    });
    return entry.syncing;
  }

  private async applyChanges(entry: Entry): Promise<number> {
    const state = await serviceState(this.options.pool, entry.serviceId);
    if (!state) return 0;
    // A shared store (pgvector) may have been moved on by another process: start from where it is.
    await entry.store.refresh();
    entry.appliedSeq = Math.max(entry.appliedSeq, entry.store.meta.changeSeq);
    if (entry.appliedSeq < state.purged_seq) {
      await this.rebuild(entry);
      return entry.store.size;
    }
    const started = performance.now();
    let applied = 0;
    for (;;) {
      const changes = await itemChanges(this.options.pool, entry.serviceId, entry.pipeline, entry.appliedSeq, PAGE);
      // Graph inserts are synchronous: apply in slices so queries of other services are not held up.
      for (let from = 0; from < changes.length; from += SLICE) {
        const slice = changes.slice(from, from + SLICE);
        const seq = slice[slice.length - 1]!.seq;
        const upserts = slice.filter((c) => c.vector).map((c) => toItem(c, entry.store.dimension));
        const removals = slice.filter((c) => !c.vector).map((c) => Number(c.record_id));
        if (removals.length) await entry.store.remove(removals, seq);
        if (upserts.length) await entry.store.upsert(upserts, seq);
        entry.appliedSeq = seq;
        entry.dirty = true;
        applied += slice.length;
        if (from + SLICE < changes.length) await new Promise((resolve) => setImmediate(resolve));
      }
      if (changes.length < PAGE) break;
    }
    if (applied >= PAGE) {
      this.options.log.info({ serviceId: entry.serviceId, applied, size: entry.store.size, ms: Math.round(performance.now() - started) }, 'search index caught up');
    }
    return applied;
  }

  /** Replaces the index with the service's live items, read in one snapshot, then saves it. */
  private async rebuild(entry: Entry): Promise<void> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const state = await serviceState(client, entry.serviceId);
      const seq = state?.index_seq ?? 0;
      const { serviceId, pipeline } = entry;
      const dim = entry.store.dimension;
      async function* pages(): AsyncGenerator<VectorItem[]> {
        let after = 0;
        for (;;) {
          const rows = await liveItems(client, serviceId, pipeline, after, PAGE);
          if (!rows.length) return;
          yield rows.map((r) => toItem(r, dim));
          after = Number(rows[rows.length - 1]!.record_id);
          if (rows.length < PAGE) return;
        }
      }
      await entry.store.rebuild(pages(), seq);
      await client.query('COMMIT');
      entry.appliedSeq = seq;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    await this.save(entry);
  }

  private async save(entry: Entry): Promise<void> {
    // An index of the store being replaced keeps its file as it is: the new store's save replaces it.
    if (entry.retired || entry.store.kind !== this.backend.kind) return;
    if (!(await this.isWriter())) {
      entry.dirty = false;
      return;
    }
    entry.dirty = false;
    try {
      await entry.store.save();
      entry.savedAt = Date.now();
    } catch (err) {
      entry.dirty = true;
      throw err;
    }
  }
}

function toItem(change: ItemChange, dim: number): VectorItem {
  return { id: Number(change.record_id), vector: bytesToVector(change.vector!, dim), tags: change.tags, product: productAttributes(change.price, change.keywords) };
}
