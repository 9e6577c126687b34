/**
 * Float32 vectors kept on disk instead of in process memory (the usearch store, whose graph holds int8 codes):
 * slot s lives at byte s · dimension · 4 of a scratch file, written with pwrite and read back with pread for
 * the few candidates a query re-scores. The page cache keeps the hot part in memory without counting against
 * the process, and the kernel can drop it under pressure.
 *
 * The scratch file is unlinked as soon as it is open: it is a working copy, never a state of record, so a
 * crash leaves nothing behind. A save streams it into the store's sidecar; a load copies it back.
 */
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { TopK } from './top-k.js';
import type { VectorSlab } from './vector-slab.js';

/** Bytes moved per system call when a save or load streams the whole file. */
const STREAM_BYTES = 4 << 20;

export class FileFloat32Slab implements VectorSlab {
  /** Nothing per slot in process memory. */
  readonly bytesPerSlot = 0;
  private fd: number | null = null;
  private readonly scratch: Float32Array;
  private readonly scratchBytes: Uint8Array;

  /** `dir`: where the scratch file goes (created if needed); default the system's temporary directory. */
  constructor(
    readonly dimension: number,
    private readonly dir?: string,
  ) {
    this.scratch = new Float32Array(dimension);
    this.scratchBytes = new Uint8Array(this.scratch.buffer);
  }

  /** The file grows as slots are written. */
  ensureCapacity(): void {}

  set(slot: number, vector: Float32Array): void {
    this.transfer('write', new Uint8Array(vector.buffer, vector.byteOffset, this.dimension * 4), this.offsetOf(slot));
  }

  dot(query: Float32Array, slot: number): number {
    const v = this.read(slot);
    let sum = 0;
    for (let d = 0; d < this.dimension; d++) sum += query[d]! * v[d]!;
    return sum;
  }

  scan(query: Float32Array, slots: Int32Array, count: number, top: TopK): void {
    for (let i = 0; i < count; i++) {
      const score = this.dot(query, slots[i]!);
      if (score > top.threshold) top.push(score, slots[i]!);
    }
  }

  get(slot: number): Float32Array {
    return this.read(slot).slice();
  }

  persisted(slots: number): { bytes: number; chunks: Iterable<Uint8Array> } {
    const bytes = slots * this.dimension * 4;
    const read = (part: Uint8Array, at: number) => this.transfer('read', part, at);
    function* chunks(): Generator<Uint8Array> {
      const buffer = new Uint8Array(Math.min(STREAM_BYTES, bytes));
      for (let at = 0; at < bytes; at += buffer.length) {
        const part = buffer.subarray(0, Math.min(buffer.length, bytes - at));
        read(part, at);
        yield part;
      }
    }
    return { bytes, chunks: chunks() };
  }

  async fill(slots: number, read: (target: Uint8Array) => Promise<void>): Promise<void> {
    const bytes = slots * this.dimension * 4;
    const buffer = new Uint8Array(Math.min(STREAM_BYTES, bytes));
    for (let at = 0; at < bytes; at += buffer.length) {
      const part = buffer.subarray(0, Math.min(buffer.length, bytes - at));
      await read(part);
      this.transfer('write', part, at);
    }
  }

  release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private read(slot: number): Float32Array {
    this.transfer('read', this.scratchBytes, this.offsetOf(slot));
    return this.scratch;
  }

  private offsetOf(slot: number): number {
    return slot * this.dimension * 4;
  }

  private file(): number {
    if (this.fd !== null) return this.fd;
    const dir = this.dir ?? os.tmpdir();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `.vectors-${randomUUID()}.f32`);
    const fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
    this.fd = fd;
    return fd;
  }

  private transfer(mode: 'read' | 'write', bytes: Uint8Array, position: number): void {
    const fd = this.file();
    for (let done = 0; done < bytes.length; ) {
      const n =
        mode === 'read'
          ? readSync(fd, bytes, done, bytes.length - done, position + done)
          : writeSync(fd, bytes, done, bytes.length - done, position + done);
      if (n <= 0) throw new Error(`vector file: short ${mode} at byte ${position + done}`);
      done += n;
    }
  }
}
