/**
 * Nonces of accepted edge signatures, remembered for as long as a signature is valid (its timestamp is
 * within INTERNAL_MAX_SKEW_MS), so that a captured call cannot be sent again. In-process memory: every
 * request of a region that reaches this process is checked exactly; with several processes behind one
 * address each keeps its own memory (docs/edge.md, "Edge → backend trust").
 */
import { INTERNAL_MAX_SKEW_MS } from '@iris/shared';

const MAX_NONCES = 1_000_000;

export class NonceMemory {
  readonly #seen = new Map<string, number>();

  /** False when the nonce was seen (or memory is full); else remembers it until `expiresAt`. */
  claim(nonce: string, signedAt: number, now = Date.now()): boolean {
    this.#purge(now);
    if (this.#seen.has(nonce) || this.#seen.size >= MAX_NONCES) return false;
    this.#seen.set(nonce, signedAt + INTERNAL_MAX_SKEW_MS);
    return true;
  }

  /** Entries are inserted in arrival order, so expired ones are mostly at the front. */
  #purge(now: number): void {
    for (const [nonce, expiresAt] of this.#seen) {
      if (expiresAt >= now) break;
      this.#seen.delete(nonce);
    }
  }

  get size(): number {
    return this.#seen.size;
  }
}
