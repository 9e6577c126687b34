/**
 * Shared memory for the pixels a process keeps between the steps of ingest (recent-pixels.ts: a downloaded
 * picture's pixels for its first pass, the first pass's for its second). One SharedArrayBuffer, allocated at the
 * first use and kept for the life of the process, from which each kept picture takes a slot; a slot's pixels are
 * a view of it, which crosses to an inference thread by reference, neither copied nor moved.
 *
 * Why not plain buffers: pixels moved between threads as ArrayBuffers are external memory of the main thread
 * while a table keeps them, and with a hundred MB or more kept V8 runs a full collection every dozen pictures
 * (docs/benchmarks.md, "The main thread's garbage collection"). Views of one buffer allocated once add none.
 *
 * Slots are written once, by `keep` on the main thread or by the decode thread a slot was `allocate`d for, and
 * only read after that. A slot belongs to one holder at a
 * time (a table, then whoever took it from the table), which `release`s it once no task reads it any more.
 * Memory: the pages of the highest slot ever used stay resident (slots are taken lowest address first).
 */
import type { RgbImage } from './rgb-image.js';

/** Slots are whole blocks: at most this much of a slot is unused (1.7 % of a 640×480 picture). */
const BLOCK_BYTES = 16 * 1024;

interface FreeRun {
  start: number;
  blocks: number;
}

export class PixelArena {
  private memory: SharedArrayBuffer | undefined;
  /** The memory could not be reserved: the arena stays empty. */
  private unavailable = false;
  /** Free runs of blocks, by start, never adjacent (merged on release). */
  private readonly free: FreeRun[];
  /** Blocks held by each slot, by its byte offset. */
  private readonly slots = new Map<number, number>();
  private heldBlocks = 0;
  readonly blocks: number;

  constructor(
    /** Bytes the arena may hold (rounded down to whole blocks); 0 holds nothing. */
    capacity: number,
  ) {
    this.blocks = Math.max(0, Math.floor(capacity / BLOCK_BYTES));
    this.free = this.blocks ? [{ start: 0, blocks: this.blocks }] : [];
  }

  /** A copy of the pixels in a slot of the arena, or undefined when no slot of their size is free. */
  keep(pixels: RgbImage): RgbImage | undefined {
    const data = this.allocate(pixels.data.byteLength);
    data?.set(pixels.data);
    return data && { data, width: pixels.width, height: pixels.height };
  }

  /**
   * A slot of `bytes` for a decode thread to write pixels into (its contents are undefined until then), or
   * undefined when none is free. Released like a kept one, and only once nothing can write to it any more.
   */
  allocate(bytes: number): Uint8Array | undefined {
    if (!this.reserve()) return undefined;
    const blocks = Math.max(1, Math.ceil(bytes / BLOCK_BYTES));
    // First fit, lowest address first, so that a small load keeps to the first pages.
    const at = this.free.findIndex((run) => run.blocks >= blocks);
    if (at < 0) return undefined;
    const run = this.free[at]!;
    const offset = run.start * BLOCK_BYTES;
    if (run.blocks === blocks) this.free.splice(at, 1);
    else this.free[at] = { start: run.start + blocks, blocks: run.blocks - blocks };
    this.slots.set(offset, blocks);
    this.heldBlocks += blocks;
    return new Uint8Array(this.memory!, offset, bytes);
  }

  /**
   * The shared memory, allocated at the first slot. A budget the machine cannot reserve (the tables' megabytes
   * set beyond its address space) leaves the arena empty: nothing is kept, and every pass decodes the stored copy.
   */
  private reserve(): boolean {
    if (this.memory) return true;
    if (!this.blocks || this.unavailable) return false;
    try {
      this.memory = new SharedArrayBuffer(this.blocks * BLOCK_BYTES);
      return true;
    } catch {
      this.unavailable = true;
      return false;
    }
  }

  /** Whether the pixels are a slot of this arena that is held (kept and not released). */
  holds(pixels: Pick<RgbImage, 'data'>): boolean {
    return this.memory !== undefined && pixels.data.buffer === this.memory && this.slots.has(pixels.data.byteOffset);
  }

  /** Gives the slot back; pixels that are not a held slot of this arena are left alone. */
  release(pixels: Pick<RgbImage, 'data'>): void {
    if (!this.holds(pixels)) return;
    const offset = pixels.data.byteOffset;
    const blocks = this.slots.get(offset)!;
    this.slots.delete(offset);
    this.heldBlocks -= blocks;
    const start = offset / BLOCK_BYTES;
    // Insert by start and merge with the neighbouring free runs.
    let at = this.free.findIndex((run) => run.start > start);
    if (at < 0) at = this.free.length;
    const before = this.free[at - 1];
    const after = this.free[at];
    if (before && before.start + before.blocks === start) {
      before.blocks += blocks;
      if (after && before.start + before.blocks === after.start) {
        before.blocks += after.blocks;
        this.free.splice(at, 1);
      }
    } else if (after && start + blocks === after.start) {
      this.free[at] = { start, blocks: blocks + after.blocks };
    } else {
      this.free.splice(at, 0, { start, blocks });
    }
  }

  /** Bytes held by slots (whole blocks). */
  get heldBytes(): number {
    return this.heldBlocks * BLOCK_BYTES;
  }

  /** Slots held. */
  get held(): number {
    return this.slots.size;
  }
}
