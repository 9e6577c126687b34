/**
 * Serialises a store's long operations (save, rebuild, compaction) and holds back mutations while one runs:
 * hnswlib serialises its graph on a libuv thread, so the graph and the side tables must not change under it.
 * Held-back mutations are validated by the caller first and applied in arrival order when the operation ends.
 */
export class MutationGate {
  private current: Promise<unknown> | null = null;
  private readonly held: (() => void)[] = [];

  constructor(private readonly onError: (err: unknown) => void) {}

  get busy(): boolean {
    return this.current !== null;
  }

  /** Runs a mutation now, or after the running operation. */
  mutate(apply: () => void): void {
    if (this.current) this.held.push(apply);
    else apply();
  }

  /** Runs one operation at a time; `inside` mutations (the operation's own) bypass the gate. */
  async exclusive<T>(operation: () => Promise<T>): Promise<T> {
    while (this.current) await this.current.catch(() => undefined);
    const running = operation();
    this.current = running;
    try {
      return await running;
    } finally {
      this.current = null;
      this.flush();
    }
  }

  /** Resolves when no operation is running. */
  async idle(): Promise<void> {
    while (this.current) await this.current.catch(() => undefined);
  }

  private flush(): void {
    while (this.held.length && !this.current) {
      const apply = this.held.shift()!;
      try {
        apply();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
