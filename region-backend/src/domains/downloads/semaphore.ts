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

/** How often work held back by a YieldGate looks again. */
const YIELD_POLL_MS = 20;

/**
 * Background work that yields: while `busy(key)` says more urgent work is being served, at most one holder
 * per key runs, and when `startsPerSecond` is set, holders of a key start at most that often (so background
 * work that is mostly CPU, a download's decode and re-encode, takes a bounded share of the cores beside
 * others' calls). Otherwise any number run (the caller's semaphores bound them). The last check and the count
 * happen in one step, so holders starting together cannot all pass.
 */
export class YieldGate {
  private readonly running = new Map<string, number>();
  /** When each key's last holder started (kept while it may still hold the next one back). */
  private readonly started = new Map<string, number>();
  private readonly spacingMs: number;

  constructor(
    private readonly busy: (key: string) => boolean,
    startsPerSecond = 0,
  ) {
    this.spacingMs = startsPerSecond > 0 ? 1000 / startsPerSecond : 0;
  }

  /** Waits for its turn (or until `stopped()`), counts the holder and answers its release. */
  async enter(key: string, stopped: () => boolean = () => false): Promise<() => void> {
    while (!stopped() && this.heldBack(key) && this.busy(key)) {
      await new Promise((resolve) => setTimeout(resolve, YIELD_POLL_MS));
    }
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    if (this.spacingMs) this.started.set(key, performance.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    };
  }

  /** Whether a holder of `key` would have to wait if the work it yields to is being served. */
  private heldBack(key: string): boolean {
    if ((this.running.get(key) ?? 0) >= 1) return true;
    if (!this.spacingMs) return false;
    const now = performance.now();
    for (const [other, at] of this.started) if (now - at >= this.spacingMs) this.started.delete(other);
    return this.started.has(key);
  }
}
