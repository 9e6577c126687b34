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
import { YieldGate } from '../downloads/semaphore.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Turns of accounts' bulk files while they yield to others' calls. */
    bulkWrites: BulkWriteTurns;
  }
}

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
  private readonly gate: YieldGate;

  constructor(private readonly options: BulkWriteTurnsOptions) {
    this.gate = new YieldGate(options.yields);
  }

  /** How many of the account's files had to wait for their turn so far. */
  waitsOf(account: string): number {
    return this.gate.waitsOf(account);
  }

  /** Waits for the account's turn; answers the release, told how many rows the file wrote. */
  async enter(account: string): Promise<(rows: number) => void> {
    const { rowsPerSecond, maxWaitMs } = this.options;
    const release = await this.gate.enter(account, undefined, {
      maxWaitMs,
      error: () => new ApiError('busy', 'bulk files of this account are being applied slower while other accounts are served; retry later'),
    });
    return (rows) => release(rowsPerSecond > 0 ? Math.min(MAX_HOLD_MS, (rows / rowsPerSecond) * 1000) : 0);
  }
}
