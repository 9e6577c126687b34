/**
 * Caps the client-URL downloads of interactive calls (analysis, search, custom classifiers) in flight: per
 * account and per process. A call over either cap is refused at once with 503 (busy, retry later) in its
 * endpoint family's shape, so one account's URLs on slow or silent servers cannot hold every socket and
 * timer of a process, nor other accounts' downloads behind them.
 */
import { ApiError } from '@iris/shared';

export class FetchSlots {
  private readonly byAccount = new Map<number, number>();
  private total = 0;

  constructor(
    readonly perAccount: number,
    readonly perProcess: number,
  ) {}

  /** Takes a slot for the account, or throws ApiError('busy'); returns the slot's release (idempotent). */
  take(accountId: number): () => void {
    const mine = this.byAccount.get(accountId) ?? 0;
    if (mine >= this.perAccount) throw new ApiError('busy', `at most ${this.perAccount} image downloads of one account at once; retry later`);
    if (this.total >= this.perProcess) throw new ApiError('busy', `at most ${this.perProcess} image downloads at once on this server; retry later`);
    this.byAccount.set(accountId, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byAccount.get(accountId) ?? 1) - 1;
      if (left > 0) this.byAccount.set(accountId, left);
      else this.byAccount.delete(accountId);
    };
  }

  /** Downloads in flight (tests, metrics). */
  get inFlight(): number {
    return this.total;
  }
}
