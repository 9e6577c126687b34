/**
 * Request bodies held in the isolate's memory, counted (docs/edge.md, "Memory for bodies"). A Workers isolate
 * has 128 MB and serves many calls at once: every buffer the edge fills with a caller's bytes is taken from
 * one isolate-wide budget (`EDGE_BODY_MEMORY_MB`) before it is allocated, and given back when the call ends,
 * whichever way it ends. A call that does not fit is answered 503/9006 (retry), the isolate keeps serving.
 */
import { ApiError } from '@iris/shared';

export class BodyMemory {
  inUse = 0;
  /** Most bytes held at once since the last `resetPeak` (tests and benchmarks). */
  peak = 0;

  acquire(bytes: number, limit: number): void {
    if (this.inUse + bytes > limit) {
      throw new ApiError('busy', 'the edge is holding as many request bodies as it can; retry shortly');
    }
    this.inUse += bytes;
    this.peak = Math.max(this.peak, this.inUse);
  }

  release(bytes: number): void {
    this.inUse = Math.max(0, this.inUse - bytes);
  }

  resetPeak(): void {
    this.peak = this.inUse;
  }
}

export const bodyMemory = new BodyMemory();

/** One call's share of the budget: taken piece by piece, given back at once when the call ends. */
export class BodyLease {
  #held = 0;

  constructor(
    readonly limit: number,
    private readonly memory: BodyMemory = bodyMemory,
  ) {}

  get held(): number {
    return this.#held;
  }

  take(bytes: number): void {
    this.memory.acquire(bytes, this.limit);
    this.#held += bytes;
  }

  give(bytes: number): void {
    const n = Math.min(bytes, this.#held);
    this.memory.release(n);
    this.#held -= n;
  }

  end(): void {
    this.give(this.#held);
  }
}

/** No budget: admin calls and tests of parsing alone. */
export function unlimitedLease(): BodyLease {
  return new BodyLease(Number.POSITIVE_INFINITY, new BodyMemory());
}
