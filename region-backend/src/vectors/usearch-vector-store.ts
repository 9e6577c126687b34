/**
 * Quantised vector store (`IRIS_VECTOR_STORE=usearch`): a usearch HNSW graph over int8 codes of the vectors
 * (cosine) stays in memory; the float32 vectors live in a file (file-vector-slab.ts) and are read with pread
 * only for the candidates a query re-scores. About a third of the HNSW store's memory per vector for the same
 * recall (docs/vector-store.md).
 *
 * - Codes: each unit vector scaled by its largest component to ±127 (as Int8Slab does). Given floats, usearch
 *   would scale by the L2 norm, which leaves a 256-dim unit vector about ±8 levels of the range; cosine
 *   ignores the scale, so the codes are compared as they are.
 * - Graph keys are the store's slots. An update removes the slot's node and adds it again; a removed slot is
 *   taken by the next new id, and usearch reuses the freed node.
 * - Scores: every candidate returned is re-scored with its float32 vector, so scores are exact cosines.
 * - Tag filters: the Node binding of usearch has no filter predicate. Few matches → exact scan of those items
 *   (float32, from the file); many → the graph is asked for more candidates than wanted (by the filter's
 *   selectivity) and they are filtered; when too few pass, the exact scan answers.
 * - Persistence: store-files.ts, with the usearch file as the index and the float32 vectors as the sidecar's
 *   vector section (streamed from and back into the scratch file).
 */
import usearch from 'usearch';
import { DEFAULT_HNSW_PARAMS, type HnswParams } from './hnsw-vector-store.js';
import { FileFloat32Slab } from './file-vector-slab.js';
import { InsertPacer } from './insert-pacer.js';
import { LocalVectorStore } from './local-vector-store.js';
import { planFilteredSearch } from './search-planner.js';
import { checkK, prepareItems, unitVector, type PreparedItem, type SlotList, type StoreOptions } from './store-state.js';
import { loadStoreFiles, saveStoreFiles } from './store-files.js';
import type { TagFilter } from './tag-filter.js';
import {
  cosineToScore,
  type LoadResult,
  type SearchOptions,
  type VectorHit,
  type VectorItem,
  type VectorStore,
} from './vector-store.js';

type Graph = InstanceType<typeof usearch.Index>;

/** The HNSW parameters (M, efConstruction, efSearch, rescore) apply as they do to the hnswlib store. */
export type UsearchParams = HnswParams;

/**
 * Chosen with `npm run bench -- vector-store` (docs/vector-store.md): efSearch and the re-scored candidates
 * are what the int8 graph needs to reach the float graph's recall; a graph built with efConstruction 256 instead
 * of 128 (the same memory, slower inserts) is what holds that recall at 1M vectors (docs/benchmarks.md).
 */
export const DEFAULT_USEARCH_PARAMS: UsearchParams = { ...DEFAULT_HNSW_PARAMS, efConstruction: 256, efSearch: 136, rescore: 20 };

/** A filtered graph search asks for at most this many times the candidates its selectivity suggests. */
const FILTER_OVERFETCH = 2;

export interface UsearchStoreOptions extends StoreOptions {
  params?: Partial<UsearchParams>;
}

export class UsearchVectorStore extends LocalVectorStore<FileFloat32Slab> implements VectorStore {
  readonly kind = 'usearch' as const;
  readonly params: UsearchParams;
  private graph: Graph;

  constructor(options: UsearchStoreOptions) {
    super(options, (dimension) => new FileFloat32Slab(dimension, options.dir));
    this.params = { ...DEFAULT_USEARCH_PARAMS, ...options.params };
    for (const [key, value] of Object.entries(this.params)) {
      if (!Number.isInteger(value) || value < (key === 'rescore' ? 0 : 1)) throw new RangeError(`usearch ${key} must be a positive integer`);
    }
    this.graph = this.newGraph();
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
        if (slot !== undefined) this.graph.remove(BigInt(slot));
      }
      this.state.advance(seq);
    });
  }

  search(query: Float32Array, k: number, filter?: TagFilter | null, options: SearchOptions = {}): VectorHit[] {
    this.assertOpen();
    const unit = unitVector(query, this.dimension);
    const n = Math.min(checkK(k), this.size);
    if (n === 0) return [];
    const rescore = options.rescore ?? this.params.rescore;
    if (!filter) return this.rescored(unit, this.candidates(unit, n + rescore, options.ef), n);

    const match = this.state.tags.match(filter);
    if (match.matches === 0) return [];
    const wanted = Math.min(n, match.matches);
    const ef = Math.max(options.ef ?? this.params.efSearch, n);
    const strategy =
      options.strategy === 'graph' || options.strategy === 'scan'
        ? options.strategy
        : planFilteredSearch(match.matches, this.size, ef, this.dimension).strategy;
    if (strategy === 'graph') {
      const ask = Math.min(this.size, Math.ceil(((wanted + rescore) * this.size * FILTER_OVERFETCH) / match.matches));
      const passing = this.candidates(unit, ask, options.ef).filter((slot) => this.state.tags.allows(match, slot));
      if (passing.length >= wanted || options.strategy === 'graph') return this.rescored(unit, passing, wanted);
    }
    return this.scanSearch(unit, wanted, this.state.matchingSlots(match));
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
        params: { space: 'cos', quantization: 'i8', m: this.params.m, efConstruction: this.params.efConstruction },
        header,
        sections,
        writeIndex: async (file) => graph.save(file),
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
        const graph = this.newGraph();
        graph.load(files.indexFile!);
        await this.state.restore(files);
        if (graph.size() !== this.state.size) throw new Error(`graph holds ${graph.size()} vectors, the sidecar ${this.state.size}`);
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
    const m = this.params.m;
    // usearch per node: int8 codes, key (8), level (2) and a node pointer (8) in its tables, level-0 links
    // (2M slot numbers of 4 bytes + a count); the key → slot map and the allocator's rounding (~200, from RSS
    // in the vector-store bench at 100k–300k); upper levels hold ~1/M of the nodes with M links each.
    return slots * (this.dimension + 8 + 2 + 8 + (2 * m + 1) * 4 + 200) + (slots / m) * (m + 1) * 4;
  }

  protected override releaseIndex(): void {
    // Dropping the reference lets the addon free the native index when collected.
    this.graph = this.newGraph();
  }

  /** Slots of the graph's nearest candidates (int8 distances). */
  private candidates(unit: Float32Array, count: number, ef: number | undefined): number[] {
    // usearch fixes its search expansion per index object; a larger count widens the search the same way.
    const found = this.graph.search(quantise(unit), Math.max(count, ef ?? 0, 1), 1);
    const slots: number[] = [];
    for (const key of found.keys) slots.push(Number(key));
    return slots;
  }

  /** The best `n` of the candidate slots by exact cosine from their float32 vectors. */
  private rescored(unit: Float32Array, slots: readonly number[], n: number): VectorHit[] {
    const scored: { slot: number; score: number }[] = [];
    for (const slot of slots) {
      if (Number.isNaN(this.state.directory.idAt(slot))) continue;
      scored.push({ slot, score: this.state.slab.dot(unit, slot) });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, n).map((c) => ({ id: this.state.directory.idAt(c.slot), score: cosineToScore(c.score) }));
  }

  private scanSearch(unit: Float32Array, n: number, slots: SlotList): VectorHit[] {
    return this.state.scan(unit, n, slots).map((c) => ({ id: this.state.directory.idAt(c.item), score: cosineToScore(c.score) }));
  }

  private insert(items: readonly PreparedItem[]): void {
    this.state.reserve(this.state.slotsNeeded(items));
    // A later duplicate id in the batch wins: the graph gets each slot once, with its last vector.
    const last = new Map<number, Float32Array>();
    for (const item of items) last.set(this.state.put(item).slot, item.unit);
    const keys = new BigUint64Array(last.size);
    const codes = new Int8Array(last.size * this.dimension);
    let i = 0;
    for (const [slot, unit] of last) {
      keys[i] = BigInt(slot);
      quantise(unit, codes.subarray(i * this.dimension, (i + 1) * this.dimension));
      i++;
    }
    const present = this.graph.contains(keys) as boolean[];
    const replaced = keys.filter((_, j) => present[j]);
    if (replaced.length) this.graph.remove(replaced);
    if (keys.length) this.graph.add(keys, codes, 1);
  }

  private newGraph(): Graph {
    return new usearch.Index({
      dimensions: this.dimension,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.I8,
      connectivity: this.params.m,
      expansion_add: this.params.efConstruction,
      expansion_search: this.params.efSearch,
      multi: false,
    });
  }

  private resetAll(): void {
    this.graph = this.newGraph();
    this.state.reset(this.newSlab(this.dimension));
  }
}

/** int8 codes of a vector scaled by its largest component: code = round(127 · x / max|x|). */
function quantise(vector: Float32Array, out = new Int8Array(vector.length)): Int8Array {
  let max = 0;
  for (let d = 0; d < vector.length; d++) max = Math.max(max, Math.abs(vector[d]!));
  const scale = max > 0 ? 127 / max : 0;
  for (let d = 0; d < vector.length; d++) out[d] = Math.round(vector[d]! * scale);
  return out;
}
