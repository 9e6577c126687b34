/** A counting semaphore: at most `size` holders at once, waiters served in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }

  get inUse(): number {
    return this.active;
  }
}

/** One semaphore per key (an account): at most `size` holders per key; idle keys are forgotten. */
export class KeyedSemaphore {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(readonly size: number) {}

  async acquire(key: string): Promise<() => void> {
    let semaphore = this.byKey.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(this.size);
      this.byKey.set(key, semaphore);
    }
    const release = await semaphore.acquire();
    return () => {
      release();
      if (semaphore.inUse === 0 && this.byKey.get(key) === semaphore) this.byKey.delete(key);
    };
  }

  inUse(key: string): number {
    return this.byKey.get(key)?.inUse ?? 0;
  }
}
