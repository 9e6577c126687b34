/**
 * Default vector store: an HNSW graph (hnswlib-node, cosine space) whose labels are the store's slots.
 *
 * - Growth: the graph is resized by half again when full (hnswlib reallocates; untouched capacity costs no RSS).
 * - Deletion: `markDelete` hides the node; its slot goes to a free list and the next new id takes it
 *   (hnswlib re-inserts a deleted label in place and repairs its links), so churn does not grow the index.
 *   Many deletions without inserts leave hidden nodes in the graph: `compact()` rebuilds it densely.
 * - Tag filters: resolved to the matching tag sets first; few matches → exact scan of those items over the
 *   int8 side copy, then exact rescoring from the graph's float32 vectors; many → graph walk with hnswlib's
 *   filter callback (see search-planner.ts).
 * - Persistence: see store-files.ts.
 */
import hnswlib from 'hnswlib-node';
import { InsertPacer } from './insert-pacer.js';
import { LocalVectorStore } from './local-vector-store.js';
import { planFilteredSearch, type FilterPlan } from './search-planner.js';
import { StoreState, checkK, prepareItems, unitVector, type PreparedItem, type SlotList, type StoreOptions } from './store-state.js';
import { loadStoreFiles, saveStoreFiles } from './store-files.js';
import type { TagFilter } from './tag-filter.js';
import { Int8Slab } from './vector-slab.js';
import {
  cosineToScore,
  type LoadResult,
  type SearchOptions,
  type VectorHit,
  type VectorItem,
  type VectorStore,
} from './vector-store.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

export interface HnswParams {
  /** Links per node (level 0 keeps 2·M). */
  m: number;
  /** Candidate list size while inserting: graph quality versus build time. */
  efConstruction: number;
  /** Default candidate list size while searching (raised to k per query). */
  efSearch: number;
  initialCapacity: number;
  /** Seed of hnswlib's level generator, for reproducible graphs. */
  seed: number;
  /** Extra candidates (beyond k) of an int8 scan that are rescored with float32 vectors. */
  rescore: number;
}

/** Chosen with `npm run bench -- vector-store` (docs/vector-store.md). */
export const DEFAULT_HNSW_PARAMS: HnswParams = {
  m: 16,
  efConstruction: 128,
  efSearch: 256,
  initialCapacity: 1024,
  seed: 100,
  rescore: 8,
};

const SPACE = 'cosine';

export interface HnswStoreOptions extends StoreOptions {
  params?: Partial<HnswParams>;
}

export class HnswVectorStore extends LocalVectorStore<Int8Slab> implements VectorStore {
  readonly kind = 'hnsw' as const;
  readonly params: HnswParams;
  private graph: Graph;

  constructor(options: HnswStoreOptions) {
    super(options, (dimension) => new Int8Slab(dimension));
    this.params = { ...DEFAULT_HNSW_PARAMS, ...options.params };
    for (const [key, value] of Object.entries(this.params)) {
      if (!Number.isInteger(value) || value < (key === 'rescore' ? 0 : 1)) throw new RangeError(`hnsw ${key} must be a positive integer`);
    }
    this.graph = this.newGraph(this.params.initialCapacity);
  }

  upsert(items: readonly VectorItem[], seq?: number): void {
    this.assertOpen();
    const prepared = prepareItems(items, this.dimension);
    this.gate.mutate(() => {
      this.insert(prepared);
      this.state.advance(seq);
    });
  }

  remove(ids: readonly number[], seq?: number): void {
    this.assertOpen();
    const list = [...ids];
    this.gate.mutate(() => {
      for (const id of list) {
        const slot = this.state.delete(id);
        if (slot !== undefined) this.graph.markDelete(slot);
      }
      this.state.advance(seq);
    });
  }

  search(query: Float32Array, k: number, filter?: TagFilter | null, options: SearchOptions = {}): VectorHit[] {
    this.assertOpen();
    const unit = unitVector(query, this.dimension);
    const n = Math.min(checkK(k), this.size);
    if (n === 0) return [];
    const ef = Math.max(options.ef ?? this.params.efSearch, n);
    if (!filter) return this.graphSearch(unit, n, ef);

    const match = this.state.tags.match(filter);
    if (match.matches === 0) return [];
    const strategy = this.chooseStrategy(match.matches, ef, options.strategy);
    const wanted = Math.min(n, match.matches);
    if (strategy === 'graph') {
      const hits = this.graphSearch(unit, wanted, ef, (slot) => this.state.tags.allows(match, slot));
      // A walk can strand in a region without matches; the exact scan never misses.
      if (hits.length === wanted || options.strategy === 'graph') return hits;
    }
    return this.scanSearch(unit, wanted, this.state.matchingSlots(match), options.rescore ?? this.params.rescore);
  }

  /** How a filtered query would be answered (tests, diagnostics). */
  explain(filter: TagFilter, k: number, options: SearchOptions = {}): FilterPlan {
    const ef = Math.max(options.ef ?? this.params.efSearch, k);
    const match = this.state.tags.match(filter);
    const plan = planFilteredSearch(match.matches, this.size, ef, this.dimension);
    return { ...plan, strategy: this.chooseStrategy(match.matches, ef, options.strategy) };
  }

  async rebuild(items: AsyncIterable<VectorItem | readonly VectorItem[]>, seq: number): Promise<void> {
    this.assertOpen();
    await this.gate.exclusive(async () => {
      this.resetAll();
      const pacer = new InsertPacer();
      for await (const batch of items) {
        const list: readonly VectorItem[] = Array.isArray(batch) ? batch : [batch as VectorItem];
        await pacer.run(list, (chunk) => this.insert(prepareItems(chunk, this.dimension)));
      }
      this.state.advance(seq);
    });
  }

  /**
   * Rebuilds the graph and tables with only the live items, densely numbered. Worth it after many more
   * deletions than insertions (`stats().deleted` large against `size`); needs memory for both copies meanwhile.
   */
  async compact(): Promise<void> {
    this.assertOpen();
    await this.gate.exclusive(async () => {
      // Built aside and swapped in at the end: searches meanwhile use the old graph.
      const live: number[] = [];
      this.state.directory.forEachLive((slot) => live.push(slot));
      const graph = this.newGraph(Math.max(live.length, this.params.initialCapacity));
      const state = new StoreState(this.dimension, this.options.embeddingVersion, this.newSlab(this.dimension));
      await new InsertPacer().run(live, (slots) => {
        const batch: PreparedItem[] = slots.map((slot) => ({
          id: this.state.directory.idAt(slot),
          unit: Float32Array.from(this.graph.getPoint(slot)),
          tags: this.state.tags.tagsOf(slot),
        }));
        insertInto(state, graph, batch);
      });
      state.meta = this.state.meta;
      this.state = state;
      this.graph = graph;
    });
  }

  async save(): Promise<void> {
    this.assertOpen();
    const dir = this.requireDir();
    await this.gate.exclusive(async () => {
      const { header, sections } = this.state.sidecar();
      const graph = this.graph;
      await saveStoreFiles(dir, {
        kind: this.kind,
        meta: this.state.meta,
        size: this.size,
        slots: this.state.directory.slotCount,
        params: { space: SPACE, m: this.params.m, efConstruction: this.params.efConstruction, capacity: graph.getMaxElements() },
        header,
        sections,
        writeIndex: async (file) => {
          await graph.writeIndex(file);
        },
      });
    });
  }

  async load(): Promise<LoadResult> {
    this.assertOpen();
    const dir = this.requireDir();
    return this.gate.exclusive(async () => {
      this.resetAll();
      const files = await loadStoreFiles(dir, {
        kind: this.kind,
        dimension: this.dimension,
        embeddingVersion: this.options.embeddingVersion,
      });
      if (!('manifest' in files)) return files;
      try {
        // A fresh object: hnswlib-node leaves a failed reader's index unusable.
        const graph = new hnswlib.HierarchicalNSW(SPACE, this.dimension);
        await graph.readIndex(files.indexFile!);
        if (graph.getCurrentCount() !== files.manifest.slots) {
          throw new Error(`graph holds ${graph.getCurrentCount()} nodes, manifest says ${files.manifest.slots}`);
        }
        await this.state.restore(files);
        this.graph = graph;
      } catch (err) {
        this.resetAll();
        return { status: 'corrupt', reason: (err as Error).message };
      }
      return { status: 'loaded', meta: this.meta, size: this.size };
    });
  }

  protected override indexBytes(): number {
    const slots = this.state.directory.slotCount;
    const capacity = this.graph.getMaxElements();
    const m = this.params.m;
    // hnswlib per node: vector, level-0 links (2M + count), label; per capacity: a mutex (40) and a level (4);
    // the label map (~40); upper levels hold ~1/M of the nodes with M links each.
    return slots * (this.dimension * 4 + (2 * m + 1) * 4 + 8 + 40 + 8) + capacity * 46 + (slots / m) * (m + 1) * 4;
  }

  protected override releaseIndex(): void {
    // Dropping the reference lets the addon free the native index when collected.
    this.graph = this.newGraph(1);
  }

  private insert(items: readonly PreparedItem[]): void {
    insertInto(this.state, this.graph, items);
  }

  private graphSearch(unit: Float32Array, n: number, ef: number, filter?: (slot: number) => boolean): VectorHit[] {
    this.graph.setEf(ef);
    const result = filter ? this.graph.searchKnn(Array.from(unit), n, filter) : this.graph.searchKnn(Array.from(unit), n);
    const hits: VectorHit[] = [];
    for (let i = 0; i < result.neighbors.length; i++) {
      const id = this.state.directory.idAt(result.neighbors[i]!);
      // 'cosine' distance is 1 − cos.
      if (!Number.isNaN(id)) hits.push({ id, score: cosineToScore(1 - result.distances[i]!) });
    }
    return hits;
  }

  private scanSearch(unit: Float32Array, n: number, slots: SlotList, rescore: number): VectorHit[] {
    const candidates = this.state.scan(unit, n + rescore, slots);
    if (rescore > 0) {
      for (const c of candidates) c.score = dot(unit, this.graph.getPoint(c.item));
      candidates.sort((a, b) => b.score - a.score);
    }
    return candidates.slice(0, n).map((c) => ({ id: this.state.directory.idAt(c.item), score: cosineToScore(c.score) }));
  }

  private chooseStrategy(matches: number, ef: number, forced: SearchOptions['strategy']): 'graph' | 'scan' {
    if (forced === 'graph' || forced === 'scan') return forced;
    return planFilteredSearch(matches, this.size, ef, this.dimension).strategy;
  }

  private newGraph(capacity: number): Graph {
    const graph = new hnswlib.HierarchicalNSW(SPACE, this.dimension);
    graph.initIndex({
      maxElements: capacity,
      m: this.params.m,
      efConstruction: this.params.efConstruction,
      randomSeed: this.params.seed,
    });
    return graph;
  }

  private resetAll(): void {
    this.graph = this.newGraph(this.params.initialCapacity);
    this.state.reset(this.newSlab(this.dimension));
  }
}

function insertInto(state: StoreState<Int8Slab>, graph: Graph, items: readonly PreparedItem[]): void {
  const needed = state.slotsNeeded(items);
  state.reserve(needed);
  const capacity = graph.getMaxElements();
  if (needed > capacity) graph.resizeIndex(Math.max(needed, Math.ceil(capacity * 1.5)));
  for (const item of items) {
    const { slot } = state.put(item);
    // A known label (same id again, or a freed slot taken by a new id) is updated in place and undeleted.
    graph.addPoint(Array.from(item.unit), slot);
  }
}

function dot(a: Float32Array, b: readonly number[]): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += a[d]! * b[d]!;
  return sum;
}
