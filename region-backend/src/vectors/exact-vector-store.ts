/**
 * Brute-force vector store: every query scores every (matching) item with float32 vectors. Exact, simple,
 * and fast enough for small services (about 0.25 µs per item at 256 dimensions); the recall reference of the
 * benchmark. Same interface, persistence format and tag filtering as the HNSW store.
 */
import { LocalVectorStore } from './local-vector-store.js';
import { checkK, prepareItems, unitVector, type StoreOptions } from './store-state.js';
import { loadStoreFiles, saveStoreFiles } from './store-files.js';
import { Float32Slab } from './vector-slab.js';
import type { TagFilter } from './tag-filter.js';
import {
  cosineToScore,
  type LoadResult,
  type VectorHit,
  type VectorItem,
  type VectorStore,
} from './vector-store.js';

const REBUILD_YIELD_ITEMS = 2000;

export class ExactVectorStore extends LocalVectorStore<Float32Slab> implements VectorStore {
  readonly kind = 'exact' as const;

  constructor(options: StoreOptions) {
    super(options, (dimension) => new Float32Slab(dimension));
  }

  upsert(items: readonly VectorItem[], seq?: number): void {
    this.assertOpen();
    const prepared = prepareItems(items, this.dimension);
    this.gate.mutate(() => {
      this.state.reserve(this.state.slotsNeeded(prepared));
      for (const item of prepared) this.state.put(item);
      this.state.advance(seq);
    });
  }

  remove(ids: readonly number[], seq?: number): void {
    this.assertOpen();
    const list = [...ids];
    this.gate.mutate(() => {
      for (const id of list) this.state.delete(id);
      this.state.advance(seq);
    });
  }

  search(query: Float32Array, k: number, filter?: TagFilter | null): VectorHit[] {
    this.assertOpen();
    const unit = unitVector(query, this.dimension);
    if (checkK(k) === 0 || this.size === 0) return [];
    let slots;
    if (filter) {
      const match = this.state.tags.match(filter);
      if (match.matches === 0) return [];
      slots = this.state.matchingSlots(match);
    } else {
      slots = this.state.liveSlots();
    }
    return this.state.scan(unit, k, slots).map((hit) => ({
      id: this.state.directory.idAt(hit.item),
      score: cosineToScore(hit.score),
    }));
  }

  async rebuild(items: AsyncIterable<VectorItem | readonly VectorItem[]>, seq: number): Promise<void> {
    this.assertOpen();
    await this.gate.exclusive(async () => {
      this.state.reset(this.newSlab(this.dimension));
      let sinceYield = 0;
      for await (const batch of items) {
        const prepared = prepareItems(Array.isArray(batch) ? batch : [batch as VectorItem], this.dimension);
        this.state.reserve(this.state.slotsNeeded(prepared));
        for (const item of prepared) this.state.put(item);
        sinceYield += prepared.length;
        if (sinceYield >= REBUILD_YIELD_ITEMS) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      this.state.advance(seq);
    });
  }

  async save(): Promise<void> {
    this.assertOpen();
    const dir = this.requireDir();
    await this.gate.exclusive(async () => {
      const { header, sections } = this.state.sidecar();
      await saveStoreFiles(dir, {
        kind: this.kind,
        meta: this.state.meta,
        size: this.size,
        slots: this.state.directory.slotCount,
        params: {},
        header,
        sections,
      });
    });
  }

  async load(): Promise<LoadResult> {
    this.assertOpen();
    const dir = this.requireDir();
    return this.gate.exclusive(async () => {
      this.state.reset(this.newSlab(this.dimension));
      const files = await loadStoreFiles(dir, {
        kind: this.kind,
        dimension: this.dimension,
        embeddingVersion: this.options.embeddingVersion,
      });
      if (!('manifest' in files)) return files;
      try {
        await this.state.restore(files);
      } catch (err) {
        this.state.reset(this.newSlab(this.dimension));
        return { status: 'corrupt', reason: (err as Error).message };
      }
      return { status: 'loaded', meta: this.meta, size: this.size };
    });
  }
}
