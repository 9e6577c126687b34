/**
 * Group commit: callers hand in one item each and wait for it to be written; items that arrive while a write
 * is running are written together by the next one. Under load, a wave of downloads finishing together costs
 * one transaction instead of one each; alone, an item is written at once (nothing waits for a timer).
 */
export class GroupCommit<K, T> {
  private readonly queued = new Map<K, { item: T; resolve: () => void; reject: (err: unknown) => void }[]>();
  private readonly running = new Set<K>();

  /**
   * `write` writes a group of one key's items (at most `maxGroup`) and answers, per item, null when written
   * or the error its caller gets; a thrown error fails every item of the group.
   */
  constructor(
    private readonly write: (key: K, items: T[]) => Promise<(Error | null)[]>,
    private readonly maxGroup = 64,
  ) {}

  /** Resolves once `item` is written (committed), rejects with its own error otherwise. */
  submit(key: K, item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      const list = this.queued.get(key) ?? [];
      list.push({ item, resolve, reject });
      this.queued.set(key, list);
      if (!this.running.has(key)) void this.drain(key);
    });
  }

  private async drain(key: K): Promise<void> {
    this.running.add(key);
    try {
      for (;;) {
        const list = this.queued.get(key);
        if (!list?.length) break;
        const group = list.splice(0, this.maxGroup);
        if (!list.length) this.queued.delete(key);
        try {
          const outcomes = await this.write(key, group.map((g) => g.item));
          group.forEach((g, i) => {
            const err = outcomes[i];
            if (err) g.reject(err);
            else g.resolve();
          });
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.running.delete(key);
    }
  }
}
