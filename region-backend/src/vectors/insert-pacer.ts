/**
 * Paces the synchronous inserts of a long build (a graph's rebuild or compaction on the request thread) so the
 * event loop keeps answering. An HNSW insert costs more as the graph grows, from microseconds to a few
 * milliseconds at a million vectors, so a fixed chunk that is right for a small graph blocks a large one for
 * hundreds of milliseconds. The pacer measures the cost per item as it goes, sizes each chunk to a time slice
 * and gives the event loop a turn after each chunk.
 */
export interface InsertPacerOptions {
  /** Target length of one synchronous chunk, ms. */
  sliceMs?: number;
  /** Most items in one chunk, whatever they cost. */
  maxChunk?: number;
  /** Clock (for tests). */
  now?: () => number;
  /** Gives the event loop a turn (for tests). */
  yieldTurn?: () => Promise<void>;
}

const DEFAULT_SLICE_MS = 10;
const DEFAULT_MAX_CHUNK = 256;

export class InsertPacer {
  private readonly sliceMs: number;
  private readonly maxChunk: number;
  private readonly now: () => number;
  private readonly yieldTurn: () => Promise<void>;
  /** ms per item in the last chunk; starts by assuming a chunk of 16 fills a slice. */
  private msPerItem: number;

  constructor(options: InsertPacerOptions = {}) {
    this.sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
    this.maxChunk = options.maxChunk ?? DEFAULT_MAX_CHUNK;
    this.now = options.now ?? (() => performance.now());
    this.yieldTurn = options.yieldTurn ?? (() => new Promise((resolve) => setImmediate(resolve)));
    this.msPerItem = this.sliceMs / 16;
  }

  /** Items in the next chunk. */
  private get chunkSize(): number {
    return Math.max(1, Math.min(this.maxChunk, Math.floor(this.sliceMs / Math.max(this.msPerItem, 1e-6))));
  }

  /** Calls `insert` on consecutive chunks of `items`, giving the event loop a turn after each. */
  async run<T>(items: readonly T[], insert: (chunk: readonly T[]) => void): Promise<void> {
    for (let i = 0; i < items.length; ) {
      const chunk = items.slice(i, i + this.chunkSize);
      const started = this.now();
      insert(chunk);
      const ended = this.now();
      // The last chunk's cost, not an average: inserts only grow dearer as the graph grows.
      this.msPerItem = (ended - started) / chunk.length;
      i += chunk.length;
      await this.yieldTurn();
    }
  }
}
