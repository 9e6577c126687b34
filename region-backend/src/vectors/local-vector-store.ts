/**
 * What the in-process stores (exact scan, HNSW, usearch) share: the slot/tag state and its stats, the mutation
 * gate that holds changes back during a save, the open/closed life cycle and the optional save directory.
 */
import { MutationGate } from './mutation-gate.js';
import { StoreState, type StoreOptions } from './store-state.js';
import { removeStoreFiles } from './store-files.js';
import type { VectorSlab } from './vector-slab.js';
import type { VectorStoreKind, VectorStoreMeta, VectorStoreStats } from './vector-store.js';

export abstract class LocalVectorStore<S extends VectorSlab> {
  readonly shared = false;
  readonly dimension: number;
  protected state: StoreState<S>;
  protected readonly gate: MutationGate;
  protected closed = false;

  protected constructor(
    protected readonly options: StoreOptions,
    protected readonly newSlab: (dimension: number) => S,
  ) {
    if (!Number.isInteger(options.dimension) || options.dimension < 1) throw new RangeError('dimension must be a positive integer');
    this.dimension = options.dimension;
    this.state = new StoreState(options.dimension, options.embeddingVersion, newSlab(options.dimension));
    this.gate = new MutationGate(options.onError ?? ((err) => console.error('vector store: deferred change failed', err)));
  }

  abstract readonly kind: VectorStoreKind;

  /** Waits for changes in flight, then drops every vector; the store answers nothing after it. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.gate.idle();
    this.closed = true;
    this.state.reset(this.newSlab(this.dimension));
    // A closed store holds nothing outside the heap either (a file-backed slab closes its file).
    this.state.slab.release();
    this.releaseIndex();
  }

  /** Drops what the store holds beside the slot and tag state (a native graph): nothing for a plain scan. */
  protected releaseIndex(): void {}

  /** Bytes held beside the slot and tag state (a native graph): none for a plain scan. */
  protected indexBytes(): number {
    return 0;
  }

  stats(): VectorStoreStats {
    return {
      kind: this.kind,
      size: this.size,
      slots: this.state.directory.slotCount,
      deleted: this.state.directory.freeCount,
      tags: this.state.tags.tagCount,
      tagsets: this.state.tags.tagsetCount,
      estimatedBytes: Math.round(this.indexBytes() + this.state.estimatedBytes()),
    };
  }

  get size(): number {
    return this.state.size;
  }

  get meta(): VectorStoreMeta {
    return { ...this.state.meta };
  }

  get dir(): string | undefined {
    return this.options.dir;
  }

  has(id: number): boolean {
    return this.state.directory.slot(id) !== undefined;
  }

  /** Nothing to re-read: this process holds the only copy. */
  async refresh(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.close();
    if (this.options.dir) await removeStoreFiles(this.options.dir);
  }

  protected requireDir(): string {
    if (!this.options.dir) throw new Error('this vector store has no directory to save to or load from');
    return this.options.dir;
  }

  protected assertOpen(): void {
    if (this.closed) throw new Error('vector store is closed');
  }
}
