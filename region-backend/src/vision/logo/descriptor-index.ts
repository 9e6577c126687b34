/**
 * Which references a query may show, so that large libraries are not matched exhaustively: multi-index hashing
 * of the 256-bit descriptors. Every library descriptor is filed under each of its sixteen 16-bit chunks; a query
 * descriptor looks in the buckets of its own chunks (two descriptors of the same logo feature, distance ≤ 40 of
 * 256, share a chunk with probability ≥ 0.66) and votes for the reference of the nearest descriptor it finds
 * there when that match is distinctive. A reference shown in the query collects many votes, the others few.
 * Cost grows with the query and the bucket sizes, not with the number of references.
 */
import { descriptorWords, hammingDistance } from './hamming-knn.js';
import { DESCRIPTOR_BYTES } from './logo-params.js';
import type { LibraryPayload } from './library-payload.js';

const CHUNKS = DESCRIPTOR_BYTES / 2;
const BUCKETS = 1 << 16;

export interface VoteOptions {
  /** A query descriptor votes for a reference owning a descriptor at most this far (Hamming, of 256 bits). */
  voteDistance: number;
  /** Buckets holding more descriptors than this are skipped: a very common chunk tells nothing. */
  maxBucket: number;
  /** Lowe's ratio: the nearest library descriptor must be closer than this fraction of the second nearest. */
  ratio: number;
}

const chunkKey = (bytes: Uint8Array, descriptor: number, chunk: number): number =>
  bytes[descriptor * DESCRIPTOR_BYTES + 2 * chunk]! | (bytes[descriptor * DESCRIPTOR_BYTES + 2 * chunk + 1]! << 8);

export class DescriptorIndex {
  private constructor(
    private readonly words: Uint32Array,
    /** Reference index of every library descriptor. */
    private readonly referenceOf: Uint32Array,
    /** Per chunk, `BUCKETS + 1` bucket starts into that chunk's part of `entries`. */
    private readonly starts: Uint32Array,
    /** Per chunk, the library's descriptor indices ordered by that chunk's value. */
    private readonly entries: Uint32Array,
    private readonly count: number,
    readonly references: number,
  ) {}

  static build(library: LibraryPayload): DescriptorIndex {
    const bytes = library.descriptors;
    const n = bytes.byteLength / DESCRIPTOR_BYTES;
    const referenceOf = new Uint32Array(n);
    library.references.forEach((r, i) => referenceOf.fill(i, r.offset, r.offset + r.count));
    const starts = new Uint32Array(CHUNKS * (BUCKETS + 1));
    const entries = new Uint32Array(CHUNKS * n);
    const next = new Uint32Array(BUCKETS);
    for (let c = 0; c < CHUNKS; c++) {
      // Counting sort of the descriptors by this chunk.
      const base = c * (BUCKETS + 1);
      for (let d = 0; d < n; d++) starts[base + chunkKey(bytes, d, c) + 1]!++;
      for (let k = 0; k < BUCKETS; k++) starts[base + k + 1]! += starts[base + k]!;
      next.set(starts.subarray(base, base + BUCKETS));
      for (let d = 0; d < n; d++) entries[c * n + next[chunkKey(bytes, d, c)]!++] = d;
    }
    return new DescriptorIndex(descriptorWords(bytes), referenceOf, starts, entries, n, library.references.length);
  }

  /**
   * Votes per reference (library order): each query descriptor votes for the reference of its nearest library
   * descriptor among those sharing a chunk with it, when that one is within the vote distance and clearly
   * nearer than the next (Lowe's ratio over the whole library). Common structure (text strokes, corners)
   * finds many similar descriptors everywhere and does not vote; distinctive parts of a logo do.
   */
  votes(query: Uint8Array, options: VoteOptions): Uint32Array {
    const queryWords = descriptorWords(query);
    const queryCount = query.byteLength / DESCRIPTOR_BYTES;
    const votes = new Uint32Array(this.references);
    for (let q = 0; q < queryCount; q++) {
      let best = Infinity;
      let second = Infinity;
      let bestDescriptor = -1;
      for (let c = 0; c < CHUNKS; c++) {
        const base = c * (BUCKETS + 1);
        const key = chunkKey(query, q, c);
        const from = this.starts[base + key]!;
        const to = this.starts[base + key + 1]!;
        if (to - from > options.maxBucket) continue;
        for (let e = from; e < to; e++) {
          const d = this.entries[c * this.count + e]!;
          if (d === bestDescriptor) continue;
          const distance = hammingDistance(queryWords, q, this.words, d);
          if (distance < best) {
            second = best;
            best = distance;
            bestDescriptor = d;
          } else if (distance < second) {
            second = distance;
          }
        }
      }
      if (bestDescriptor >= 0 && best <= options.voteDistance && best < options.ratio * second) votes[this.referenceOf[bestDescriptor]!]!++;
    }
    return votes;
  }
}

let cached: { key: string; index: DescriptorIndex } | null = null;

/** The index of a library, built once per library version and thread (the last one is kept). */
export function descriptorIndex(library: LibraryPayload): DescriptorIndex {
  if (cached?.key !== library.key) cached = { key: library.key, index: DescriptorIndex.build(library) };
  return cached.index;
}
