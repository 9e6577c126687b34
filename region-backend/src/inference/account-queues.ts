/**
 * Waiting jobs per account, served round-robin: each pick takes the oldest job of the account served
 * longest ago (among those that may run one more, under their concurrency limit), so one account's flood
 * waits behind its own jobs, not in front of everyone else's.
 */
interface Lane<T> {
  items: T[];
  /** Pick number of the account's last job (0: never served). */
  servedAt: number;
}

/** Accounts remembered with an empty queue before the oldest of them are forgotten. */
const IDLE_KEPT = 1000;

export class AccountQueues<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  private picks = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  waitingOf(account: string): number {
    return this.lanes.get(account)?.items.length ?? 0;
  }

  push(account: string, item: T): void {
    let lane = this.lanes.get(account);
    if (!lane) {
      if (this.lanes.size >= IDLE_KEPT) this.forgetIdle();
      lane = { items: [], servedAt: 0 };
      this.lanes.set(account, lane);
    }
    lane.items.push(item);
    this.count++;
  }

  /**
   * The next item of the account whose turn it is, among those for which `mayRun` holds (and whose next item
   * satisfies `nextOk`, when given); or undefined.
   */
  shift(mayRun: (account: string) => boolean, nextOk?: (item: T) => boolean): T | undefined {
    let best: Lane<T> | undefined;
    for (const [account, lane] of this.lanes) {
      if (!lane.items.length || (best && lane.servedAt >= best.servedAt) || !mayRun(account)) continue;
      if (nextOk && !nextOk(lane.items[0]!)) continue;
      best = lane;
    }
    if (!best) return undefined;
    best.servedAt = ++this.picks;
    this.count--;
    return best.items.shift();
  }

  /** Removes and returns up to `max` more items of one account that satisfy `match`, oldest first (batching). */
  takeMatching(account: string, max: number, match: (item: T) => boolean): T[] {
    const lane = this.lanes.get(account);
    const taken: T[] = [];
    if (!lane) return taken;
    for (let i = 0; i < lane.items.length && taken.length < max; ) {
      if (match(lane.items[i]!)) taken.push(...lane.items.splice(i, 1));
      else i++;
    }
    this.count -= taken.length;
    return taken;
  }

  /** Removes and returns every item. */
  drain(): T[] {
    const all = [...this.lanes.values()].flatMap((l) => l.items);
    this.lanes.clear();
    this.count = 0;
    return all;
  }

  private forgetIdle(): void {
    for (const [account, lane] of this.lanes) if (!lane.items.length) this.lanes.delete(account);
  }
}
