/**
 * The in-memory HNSW index of every search service this process serves, persisted under
 * `<dataDir>/indexes/<service id>`. PostgreSQL holds what each index must contain (search_index_items, a
 * change feed with its own seq); a process loads its saved copy and applies the items changed since the seq
 * the copy was saved at, or rebuilds from the stored embeddings when the copy is missing, corrupt, made with
 * another embedding pipeline, or older than the item tombstones still kept.
 *
 * Several processes may share one data directory: the first to claim `indexes/.writer` saves, the others only
 * read saved files (their copies are rebuilt or caught up from PostgreSQL like any other).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { EMBEDDING_DIM } from '../../embedding/embedding-info.js';
import type { HnswParams } from '../../vectors/hnsw-vector-store.js';
import { createServiceStore, type VectorBackend } from '../../vectors/open-vector-store.js';
import type { VectorItem, VectorStore } from '../../vectors/vector-store.js';
import { productAttributes } from '../search/product-filter.js';
import { bytesToVector } from './embedding-pipeline.js';
import { itemChanges, liveItems, type ItemChange } from './index-items.repo.js';
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
}

export interface ServiceIndexesOptions {
  pool: pg.Pool;
  dataDir: string;
  log: FastifyBaseLogger;
  params?: Partial<HnswParams>;
  /** A changed index is saved at most this often (and when the process closes). */
  saveEveryMs?: number;
  /** In-process HNSW indexes (default), or a pgvector database shared by every process (nothing in memory). */
  vectors?: VectorBackend;
}

export class ServiceIndexes {
  private readonly entries = new Map<string, Entry>();
  private closed = false;
  private readonly token = `${process.pid}:${randomBytes(8).toString('hex')}`;
  private writer: Promise<boolean> | null = null;

  constructor(private readonly options: ServiceIndexesOptions) {}

  dirOf(serviceId: string): string {
    return path.join(this.options.dataDir, 'indexes', serviceId);
  }

  /** Services whose index this process holds. */
  get loaded(): string[] {
    return [...this.entries.keys()];
  }

  /** What this process holds for a service (diagnostics and tests), or null when it holds nothing. */
  describe(serviceId: string): { kind: VectorStore['kind']; size: number; seq: number; origin: 'file' | 'rebuild' | null; bytes: number } | null {
    const entry = this.entries.get(serviceId);
    return entry
      ? { kind: entry.store.kind, size: entry.store.size, seq: entry.appliedSeq, origin: entry.origin, bytes: entry.store.stats().estimatedBytes }
      : null;
  }

  /** The service's index, loaded, and caught up at least to `state.index_seq`. */
  async acquire(state: ServiceState): Promise<VectorStore> {
    if (this.closed) throw new Error('search indexes are closed');
    let entry = this.entries.get(state.id);
    if (entry && entry.pipeline !== state.pipeline) {
      await this.drop(state.id, false);
      entry = undefined;
    }
    entry ??= this.open(state);
    await entry.ready;
    while (entry.appliedSeq < state.index_seq || entry.appliedSeq < state.purged_seq) {
      const before = entry.appliedSeq;
      await this.sync(entry);
      if (entry.appliedSeq === before) break;
    }
    return entry.store;
  }

  /**
   * Brings this process in line with PostgreSQL, given the state of every service: loads the indexes it does
   * not hold yet, catches up those behind, drops those of deleted services (with their files).
   */
  async refresh(states: readonly ServiceState[]): Promise<void> {
    const live = new Set(states.map((s) => s.id));
    for (const id of this.loaded) if (!live.has(id)) await this.drop(id, true);
    for (const state of states) {
      if (this.closed) return;
      const entry = this.entries.get(state.id);
      if (entry && entry.pipeline === state.pipeline && entry.appliedSeq >= state.index_seq) continue;
      await this.acquire(state).catch((err: unknown) => {
        if (!(err instanceof ServiceGoneError)) this.options.log.warn({ err, serviceId: state.id }, 'loading a search index failed');
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
    if (entry) {
      await entry.ready.catch(() => undefined);
      await entry.syncing?.catch(() => undefined);
      await (removeFiles ? entry.store.destroy() : entry.store.close());
    }
    if (removeFiles) await rm(this.dirOf(serviceId), { recursive: true, force: true });
  }

  /** Whether this process saves indexes in its data directory (one writer per directory). */
  isWriter(): Promise<boolean> {
    this.writer ??= this.claimWriter().catch((err: unknown) => {
      this.options.log.warn({ err }, 'cannot claim the search index directory: indexes will not be saved');
      return false;
    });
    return this.writer;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of [...this.entries.values()]) {
      await entry.ready.catch(() => undefined);
      await entry.syncing?.catch(() => undefined);
      if (entry.dirty) await this.save(entry).catch((err: unknown) => this.options.log.warn({ err, serviceId: entry.serviceId }, 'saving a search index failed'));
      await entry.store.close();
    }
    this.entries.clear();
    if (await this.writer) await this.releaseWriter();
  }

  private get writerFile(): string {
    return path.join(this.options.dataDir, 'indexes', '.writer');
  }

  /** Takes the directory unless a live process holds it (a crashed holder's claim is taken over). */
  private async claimWriter(): Promise<boolean> {
    await mkdir(path.dirname(this.writerFile), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(this.writerFile, this.token, { flag: 'wx' });
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = (await readFile(this.writerFile, 'utf8').catch(() => '')).trim();
      if (holder === this.token) return true;
      if (processAlive(Number(holder.split(':')[0]))) return false;
      await rm(this.writerFile, { force: true });
    }
    return false;
  }

  private async releaseWriter(): Promise<void> {
    const holder = await readFile(this.writerFile, 'utf8').catch(() => '');
    if (holder.trim() === this.token) await rm(this.writerFile, { force: true });
  }

  private open(state: ServiceState): Entry {
    const store = createServiceStore(this.options.vectors ?? { kind: 'hnsw' }, state.id, {
      dimension: EMBEDDING_DIM,
      embeddingVersion: state.pipeline,
      dir: this.dirOf(state.id),
      ...(this.options.params ? { params: this.options.params } : {}),
      onError: (err) => this.options.log.error({ err, serviceId: state.id }, 'search index update failed'),
    });
    const entry: Entry = { serviceId: state.id, pipeline: state.pipeline, store, appliedSeq: 0, origin: null, ready: Promise.resolve(), syncing: null, dirty: false, savedAt: 0 };
    entry.ready = this.load(entry).catch(async (err: unknown) => {
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
        const upserts = slice.filter((c) => c.vector).map(toItem);
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
      async function* pages(): AsyncGenerator<VectorItem[]> {
        let after = 0;
        for (;;) {
          const rows = await liveItems(client, serviceId, pipeline, after, PAGE);
          if (!rows.length) return;
          yield rows.map(toItem);
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

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function toItem(change: ItemChange): VectorItem {
  return { id: Number(change.record_id), vector: bytesToVector(change.vector!), tags: change.tags, product: productAttributes(change.price, change.keywords) };
}
