/**
 * Per-slot vector storage in JavaScript memory, in blocks so growth never copies (or doubles) a large array.
 *
 * - `Float32Slab`: exact vectors (the exact store).
 * - `Int8Slab`: scalar-quantised copies, 1 byte per dimension plus one float scale per vector (the HNSW store
 *   keeps its float32 vectors inside hnswlib; this quarter-size copy serves exact scans over the few items a
 *   selective tag filter leaves, without calling into the native index per item).
 */

/** Slots per block once a slab is large; below that the first block grows by doubling. */
import type { TopK } from './top-k.js';

const BLOCK_SLOTS = 1 << 16;
const BLOCK_SHIFT = 16;

export interface VectorSlab {
  readonly dimension: number;
  /** Bytes of storage per slot, for memory estimates. */
  readonly bytesPerSlot: number;
  ensureCapacity(slots: number): void;
  /** Stores a unit vector in a slot. */
  set(slot: number, vector: Float32Array): void;
  /** Inner product of a unit query with the stored vector (approximate for the int8 slab). */
  dot(query: Float32Array, slot: number): number;
  /** Scores slots[0..count) against the query into `top` (the hot loop of exact scans). */
  scan(query: Float32Array, slots: Int32Array, count: number, top: TopK): void;
  /** The stored vector (a copy; dequantised for the int8 slab). */
  get(slot: number): Float32Array;
  /** What a save writes for slots [0, slots): the byte count and the bytes in order (produced lazily by a file-backed slab). */
  persisted(slots: number): { bytes: number; chunks: Iterable<Uint8Array> };
  /** Fills slots [0, slots) from what `persisted` wrote, asking `read` for it in order. */
  fill(slots: number, read: (target: Uint8Array) => Promise<void>): Promise<void>;
  /** Frees what the slab holds outside the JavaScript heap (a file-backed slab closes its file). */
  release(): void;
}

abstract class BlockSlab<T extends Float32Array | Int8Array> {
  protected blocks: T[] = [];
  private capacity = 0;

  constructor(readonly dimension: number) {}

  protected abstract allocate(length: number): T;

  /**
   * The storage of slots [0, slots) as byte views (not copies): written out by a save, filled in place by a
   * load. The capacity must cover `slots`.
   */
  abstract chunks(slots: number): Uint8Array[];

  persisted(slots: number): { bytes: number; chunks: Uint8Array[] } {
    const chunks = this.chunks(slots);
    return { bytes: chunks.reduce((n, c) => n + c.length, 0), chunks };
  }

  async fill(slots: number, read: (target: Uint8Array) => Promise<void>): Promise<void> {
    for (const chunk of this.chunks(slots)) await read(chunk);
  }

  /** Nothing outside the heap: the garbage collector frees the blocks. */
  release(): void {}

  ensureCapacity(slots: number): void {
    if (slots <= this.capacity) return;
    const d = this.dimension;
    if (this.capacity < BLOCK_SLOTS) {
      const first = Math.min(BLOCK_SLOTS, Math.max(slots, this.capacity * 2, 16));
      const block = this.allocate(first * d);
      if (this.blocks[0]) block.set(this.blocks[0]);
      this.blocks[0] = block;
      this.capacity = first;
    }
    while (this.capacity < slots) {
      this.blocks.push(this.allocate(BLOCK_SLOTS * d));
      this.capacity += BLOCK_SLOTS;
    }
  }

  protected blockOf(slot: number): T {
    return this.blocks[slot >>> BLOCK_SHIFT]!;
  }

  protected offsetOf(slot: number): number {
    return (slot & (BLOCK_SLOTS - 1)) * this.dimension;
  }

  protected dataChunks(slots: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    const bytes = this.blocks[0]?.BYTES_PER_ELEMENT ?? 1;
    for (let start = 0, b = 0; start < slots; start += BLOCK_SLOTS, b++) {
      const n = Math.min(BLOCK_SLOTS, slots - start) * this.dimension;
      const block = this.blocks[b]!;
      out.push(new Uint8Array(block.buffer, block.byteOffset, n * bytes));
    }
    return out;
  }
}

export class Float32Slab extends BlockSlab<Float32Array> implements VectorSlab {
  get bytesPerSlot(): number {
    return this.dimension * 4;
  }

  protected allocate(length: number): Float32Array {
    return new Float32Array(length);
  }

  set(slot: number, vector: Float32Array): void {
    this.blockOf(slot).set(vector, this.offsetOf(slot));
  }

  dot(query: Float32Array, slot: number): number {
    const data = this.blockOf(slot);
    const base = this.offsetOf(slot);
    let sum = 0;
    for (let d = 0; d < this.dimension; d++) sum += query[d]! * data[base + d]!;
    return sum;
  }

  get(slot: number): Float32Array {
    const base = this.offsetOf(slot);
    return this.blockOf(slot).slice(base, base + this.dimension);
  }

  scan(query: Float32Array, slots: Int32Array, count: number, top: TopK): void {
    const dim = this.dimension;
    const tail = dim & 3;
    const blocks = this.blocks;
    for (let i = 0; i < count; i++) {
      const slot = slots[i]!;
      const data = blocks[slot >>> BLOCK_SHIFT]!;
      const base = (slot & (BLOCK_SLOTS - 1)) * dim;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let d = 0;
      for (const end = dim - tail; d < end; d += 4) {
        s0 += query[d]! * data[base + d]!;
        s1 += query[d + 1]! * data[base + d + 1]!;
        s2 += query[d + 2]! * data[base + d + 2]!;
        s3 += query[d + 3]! * data[base + d + 3]!;
      }
      for (; d < dim; d++) s0 += query[d]! * data[base + d]!;
      const score = s0 + s1 + s2 + s3;
      if (score > top.threshold) top.push(score, slot);
    }
  }

  chunks(slots: number): Uint8Array[] {
    return this.dataChunks(slots);
  }

}

/**
 * Symmetric per-vector scalar quantisation: code = round(x / s) with s = max|x| / 127. The query stays float,
 * so the only error is the rounding of stored values (about ±s/2 per dimension, ~3e-4 on a cosine at 256 dims).
 */
export class Int8Slab extends BlockSlab<Int8Array> implements VectorSlab {
  private scales = new Float32Array(0);

  get bytesPerSlot(): number {
    return this.dimension + 4;
  }

  protected allocate(length: number): Int8Array {
    return new Int8Array(length);
  }

  override ensureCapacity(slots: number): void {
    super.ensureCapacity(slots);
    if (slots > this.scales.length) {
      const grown = new Float32Array(Math.max(slots, this.scales.length * 2, 16));
      grown.set(this.scales);
      this.scales = grown;
    }
  }

  set(slot: number, vector: Float32Array): void {
    let max = 0;
    for (let d = 0; d < this.dimension; d++) max = Math.max(max, Math.abs(vector[d]!));
    const scale = max > 0 ? max / 127 : 1;
    const codes = this.blockOf(slot);
    const base = this.offsetOf(slot);
    for (let d = 0; d < this.dimension; d++) codes[base + d] = Math.round(vector[d]! / scale);
    this.scales[slot] = scale;
  }

  dot(query: Float32Array, slot: number): number {
    const codes = this.blockOf(slot);
    const base = this.offsetOf(slot);
    let sum = 0;
    for (let d = 0; d < this.dimension; d++) sum += query[d]! * codes[base + d]!;
    return sum * this.scales[slot]!;
  }

  scan(query: Float32Array, slots: Int32Array, count: number, top: TopK): void {
    const dim = this.dimension;
    const tail = dim & 3;
    const blocks = this.blocks;
    const scales = this.scales;
    for (let i = 0; i < count; i++) {
      const slot = slots[i]!;
      const codes = blocks[slot >>> BLOCK_SHIFT]!;
      const base = (slot & (BLOCK_SLOTS - 1)) * dim;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let d = 0;
      for (const end = dim - tail; d < end; d += 4) {
        s0 += query[d]! * codes[base + d]!;
        s1 += query[d + 1]! * codes[base + d + 1]!;
        s2 += query[d + 2]! * codes[base + d + 2]!;
        s3 += query[d + 3]! * codes[base + d + 3]!;
      }
      for (; d < dim; d++) s0 += query[d]! * codes[base + d]!;
      const score = (s0 + s1 + s2 + s3) * scales[slot]!;
      if (score > top.threshold) top.push(score, slot);
    }
  }

  get(slot: number): Float32Array {
    const codes = this.blockOf(slot);
    const base = this.offsetOf(slot);
    const scale = this.scales[slot]!;
    const out = new Float32Array(this.dimension);
    for (let d = 0; d < this.dimension; d++) out[d] = codes[base + d]! * scale;
    return out;
  }

  chunks(slots: number): Uint8Array[] {
    return [...this.dataChunks(slots), new Uint8Array(this.scales.buffer, 0, slots * 4)];
  }
}
