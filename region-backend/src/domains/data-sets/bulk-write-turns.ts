/**
 * Bulk files (`urls_to_add`, `urls_to_delete`, `products_to_add`, `products_to_delete`) of an account that
 * sends calls in parallel, while another account is being served: most of a bulk file's cost is PostgreSQL
 * writes at normal priority (about 0.25 ms of CPU per row between the backend and PostgreSQL), which the
 * thread tiers cannot lower. Such an account's files are then applied one at a time, and a file of n rows
 * written while it yields holds the account's next one back for n / `rowsPerSecond` seconds (at most
 * MAX_HOLD_MS). Alone, or calling one at a time, an account is never held. A file that waits longer than
 * `maxWaitMs` is refused with 503/9006 (retry later).
 */
import { ApiError } from '@iris/shared';

declare module 'fastify' {
  interface FastifyInstance {
    /** Turns of accounts' bulk files while they yield to others' calls. */
    bulkWrites: BulkWriteTurns;
  }
}

/** How often a held-back file looks again. */
const POLL_MS = 20;
/** Longest hold after one file (a large catalogue file is not followed by minutes of waiting). */
export const MAX_HOLD_MS = 5_000;

export interface BulkWriteTurnsOptions {
  /** Whether `account` should yield now (another account is served and this one calls in parallel). */
  yields: (account: string) => boolean;
  /** Rows a yielding account's files may write per second (0: one file at a time, no spacing). */
  rowsPerSecond: number;
  maxWaitMs: number;
}

export class BulkWriteTurns {
  private readonly applying = new Map<string, number>();
  /** When each account's next file may start while it yields (kept until then). */
  private readonly nextAt = new Map<string, number>();

  constructor(private readonly options: BulkWriteTurnsOptions) {}

  /** Waits for the account's turn; answers the release, told how many rows the file wrote. */
  async enter(account: string): Promise<(rows: number) => void> {
    const deadline = performance.now() + this.options.maxWaitMs;
    while (this.heldBack(account) && this.options.yields(account)) {
      if (performance.now() >= deadline) throw new ApiError('busy', 'bulk files of this account are being applied slower while other accounts are served; retry later');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    this.applying.set(account, (this.applying.get(account) ?? 0) + 1);
    let released = false;
    return (rows) => {
      if (released) return;
      released = true;
      const left = (this.applying.get(account) ?? 1) - 1;
      if (left > 0) this.applying.set(account, left);
      else this.applying.delete(account);
      if (this.options.rowsPerSecond > 0 && rows > 0 && this.options.yields(account)) {
        const next = performance.now() + Math.min(MAX_HOLD_MS, (rows / this.options.rowsPerSecond) * 1000);
        this.nextAt.set(account, Math.max(next, this.nextAt.get(account) ?? 0));
      }
    };
  }

  private heldBack(account: string): boolean {
    if ((this.applying.get(account) ?? 0) >= 1) return true;
    const at = this.nextAt.get(account);
    if (at === undefined) return false;
    if (performance.now() >= at) {
      this.nextAt.delete(account);
      return false;
    }
    return true;
  }
}
