/**
 * Nonces of accepted edge signatures, remembered for as long as a signature is valid (its timestamp is
 * within INTERNAL_MAX_SKEW_MS of the clock), so that a captured call cannot be sent again. In-process memory:
 * every request of a region that reaches this process is checked exactly; with several processes behind one
 * address each keeps its own memory (docs/edge.md, "Edge → backend trust").
 *
 * The memory is bounded by the freshness window alone: a nonce is dropped once its signature has expired
 * (it can no longer be replayed), whatever order nonces expire in (an edge clock ahead signs timestamps
 * up to the skew in the future). There is no count limit, so no legitimate call is ever refused for memory:
 * it holds the calls of the last 2 × INTERNAL_MAX_SKEW_MS at most (docs/limits.md).
 */
import { INTERNAL_MAX_SKEW_MS } from '@iris/shared';

/** Nonces are grouped by the second their signature expires in, and dropped a group at a time. */
const BUCKET_MS = 1000;

export class NonceMemory {
  readonly #seen = new Set<string>();
  readonly #byExpiry = new Map<number, string[]>();
  /** Every bucket below this index has been dropped. */
  #droppedBelow = -Infinity;

  /** False when the nonce was seen while its signature is valid; else remembers it until then. */
  claim(nonce: string, signedAt: number, now = Date.now()): boolean {
    this.#drop(now);
    if (this.#seen.has(nonce)) return false;
    // Rounded up: a nonce is never dropped before its signature expires.
    const bucket = Math.max(Math.ceil((signedAt + INTERNAL_MAX_SKEW_MS) / BUCKET_MS), this.#droppedBelow);
    this.#seen.add(nonce);
    const group = this.#byExpiry.get(bucket);
    if (group) group.push(nonce);
    else this.#byExpiry.set(bucket, [nonce]);
    return true;
  }

  /** Drops the groups that expired before `now`: bucket b holds expiries up to b × BUCKET_MS. */
  #drop(now: number): void {
    const below = Math.ceil(now / BUCKET_MS);
    if (below <= this.#droppedBelow) return;
    const drop = (bucket: number) => {
      for (const nonce of this.#byExpiry.get(bucket) ?? []) this.#seen.delete(nonce);
      this.#byExpiry.delete(bucket);
    };
    if (below - this.#droppedBelow > this.#byExpiry.size) {
      for (const bucket of [...this.#byExpiry.keys()]) if (bucket < below) drop(bucket);
    } else {
      for (let bucket = this.#droppedBelow; bucket < below; bucket++) drop(bucket);
    }
    this.#droppedBelow = below;
  }

  get size(): number {
    return this.#seen.size;
  }
}
