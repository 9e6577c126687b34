/**
 * What both store implementations keep on the JavaScript side: id ↔ slot, tags per slot, a vector per slot,
 * and the metadata. The HNSW store adds its native graph (labels = slots); the exact store scans this alone.
 */
import { normalizeTags } from './tag-filter.js';
import { TagIndex, type TagMatch } from './tag-index.js';
import { SlotDirectory } from './slot-directory.js';
import { TopK } from './top-k.js';
import { bytesOf, readSection, readSectionWith, type LoadedFiles, type SidecarSection } from './store-files.js';
import type { VectorItem, VectorStoreMeta } from './vector-store.js';
import type { VectorSlab } from './vector-slab.js';

export interface PreparedItem {
  id: number;
  unit: Float32Array;
  tags: string[];
}

export interface SlotList {
  slots: Int32Array;
  count: number;
}

export interface StoreOptions {
  dimension: number;
  /** Written into the saved file; a file of another version loads as `incompatible`. */
  embeddingVersion: string;
  /** Directory for save()/load(); without it the store is memory-only. */
  dir?: string;
  /** Receives errors of mutations that were held back during a save and applied afterwards. */
  onError?: (err: unknown) => void;
}

/** Validates items and returns unit-length copies (the caller's arrays are never kept or changed). */
export function prepareItems(items: readonly VectorItem[], dimension: number): PreparedItem[] {
  return items.map((item, i) => {
    if (!Number.isSafeInteger(item.id) || item.id < 0) throw new RangeError(`item ${i}: id must be a non-negative integer`);
    if (!Array.isArray(item.tags)) throw new TypeError(`item ${i}: tags must be a list of strings`);
    return { id: item.id, unit: unitVector(item.vector, dimension, `item ${item.id}`), tags: normalizeTags(item.tags) };
  });
}

export function unitVector(vector: Float32Array, dimension: number, what = 'query'): Float32Array {
  if (!(vector instanceof Float32Array)) throw new TypeError(`${what}: vector must be a Float32Array`);
  if (vector.length !== dimension) throw new RangeError(`${what}: vector has ${vector.length} dimensions, the store ${dimension}`);
  let norm = 0;
  for (let d = 0; d < dimension; d++) norm += vector[d]! * vector[d]!;
  if (!Number.isFinite(norm) || norm === 0) throw new RangeError(`${what}: vector must be finite and non-zero`);
  const inv = 1 / Math.sqrt(norm);
  const out = new Float32Array(dimension);
  for (let d = 0; d < dimension; d++) out[d] = vector[d]! * inv;
  return out;
}

export function checkK(k: number): number {
  if (!Number.isInteger(k) || k < 0) throw new RangeError('k must be a non-negative integer');
  return k;
}

export class StoreState<S extends VectorSlab> {
  directory = new SlotDirectory();
  tags = new TagIndex();
  meta: VectorStoreMeta;
  private capacity = 0;

  constructor(
    readonly dimension: number,
    embeddingVersion: string,
    public slab: S,
  ) {
    this.meta = { embeddingVersion, dimension, changeSeq: 0 };
  }

  get size(): number {
    return this.directory.size;
  }

  /** Slots required if all these items were stored now (new ids take freed slots first). */
  slotsNeeded(items: readonly PreparedItem[]): number {
    const fresh = new Set<number>();
    for (const item of items) if (this.directory.slot(item.id) === undefined) fresh.add(item.id);
    return this.directory.slotCount + Math.max(0, fresh.size - this.directory.freeCount);
  }

  /** Slots the JS tables have room for. */
  get slotCapacity(): number {
    return this.capacity;
  }

  /** Makes room for at least `slots` slots in the JS tables, growing by half again so growth is amortised. */
  reserve(slots: number): void {
    if (slots <= this.capacity) return;
    const target = Math.max(slots, Math.ceil(this.capacity * 1.5), 16);
    this.tags.ensureCapacity(target);
    this.slab.ensureCapacity(target);
    this.capacity = target;
  }

  /** Stores an item's vector and tags; the slot must be reserved. */
  put(item: PreparedItem): { slot: number; isNew: boolean; reused: boolean } {
    const placed = this.directory.acquire(item.id);
    this.slab.set(placed.slot, item.unit);
    this.tags.assign(placed.slot, item.tags);
    return placed;
  }

  /** Removes an item; returns its former slot, or undefined when the id was not stored. */
  delete(id: number): number | undefined {
    const slot = this.directory.release(id);
    if (slot !== undefined) this.tags.release(slot);
    return slot;
  }

  advance(seq: number | undefined): void {
    if (seq !== undefined && (!Number.isSafeInteger(seq) || seq < 0)) throw new RangeError('seq must be a non-negative integer');
    this.meta.changeSeq = seq === undefined ? this.meta.changeSeq + 1 : Math.max(this.meta.changeSeq, seq);
  }

  /** Exact top-k over the given slots with the slab's vectors: slot numbers with cosine similarities. */
  scan(query: Float32Array, k: number, slots: SlotList): { item: number; score: number }[] {
    const top = new TopK(k);
    this.slab.scan(query, slots.slots, slots.count, top);
    return top.sorted();
  }

  /** Every live slot, as a list for `scan`. */
  liveSlots(): SlotList {
    const slots = new Int32Array(this.directory.size);
    let count = 0;
    this.directory.forEachLive((slot) => (slots[count++] = slot));
    return { slots, count };
  }

  /** The slots of the items matching a filter, as a list for `scan`. */
  matchingSlots(match: TagMatch): SlotList {
    const slots = new Int32Array(match.matches);
    let count = 0;
    this.tags.forEachMatch(match, (slot) => (slots[count++] = slot));
    return { slots, count };
  }

  /** Sidecar content for save(). */
  sidecar(): { header: Record<string, unknown>; sections: SidecarSection[] } {
    const slots = this.directory.slotCount;
    const tags = this.tags.snapshot(slots);
    return {
      header: { tags: tags.tags, tagsets: tags.tagsets },
      sections: [
        { name: 'ids', chunks: [bytesOf(this.directory.snapshot())] },
        { name: 'slotTagset', chunks: [bytesOf(tags.slotTagset)] },
        { name: 'vectors', ...this.slab.persisted(slots) },
      ],
    };
  }

  /** Restores from loaded files; throws when they do not fit together (the caller then resets). */
  async restore(files: LoadedFiles): Promise<void> {
    const slots = files.manifest.slots;
    if (!Number.isSafeInteger(slots) || slots < 0) throw new Error('bad slot count');
    const ids = new Float64Array(slots);
    await readSection(files, 'ids', [bytesOf(ids)]);
    const slotTagset = new Uint32Array(slots);
    await readSection(files, 'slotTagset', [bytesOf(slotTagset)]);
    const { tags, tagsets } = files.header as { tags?: unknown; tagsets?: unknown };
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) throw new Error('bad tag dictionary');
    if (!Array.isArray(tagsets) || !tagsets.every((s) => Array.isArray(s) && s.every((t) => Number.isInteger(t)))) {
      throw new Error('bad tag sets');
    }
    const directory = SlotDirectory.fromSnapshot(ids);
    if (directory.size !== files.manifest.size) throw new Error(`holds ${directory.size} items, manifest says ${files.manifest.size}`);
    const tagIndex = TagIndex.fromSnapshot({ tags: tags as string[], tagsets: tagsets as number[][], slotTagset });
    this.directory = directory;
    this.tags = tagIndex;
    this.capacity = 0;
    this.reserve(slots);
    // The slab's storage views, filled from the file in place.
    await readSectionWith(files, 'vectors', this.slab.persisted(slots).bytes, (read) => this.slab.fill(slots, read));
    this.meta = { ...files.manifest.meta };
  }

  /** Forgets everything but the embedding version and dimension; `slab` is a fresh, empty slab. */
  reset(slab: S): void {
    if (slab !== this.slab) this.slab.release();
    this.directory = new SlotDirectory();
    this.tags = new TagIndex();
    this.slab = slab;
    this.capacity = 0;
    this.meta = { ...this.meta, changeSeq: 0 };
  }

  /** Approximate bytes of the JS-side tables. */
  estimatedBytes(): number {
    const slots = this.directory.slotCount;
    // Per slot: vector, id (8), tag set + member position (8), member list entry (8), id → slot table (8–16).
    return slots * (this.slab.bytesPerSlot + 40);
  }
}
