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

/** How long a YieldGate holder may wait, and what it throws past that. */
export interface YieldWait {
  maxWaitMs: number;
  error: () => Error;
}

/**
 * Background work that yields: while `busy(key)` says more urgent work is being served, at most one holder
 * per key runs, and when `startsPerSecond` is set, holders of a key start at most that often (so background
 * work that is mostly CPU, a download's decode and re-encode, takes a bounded share of the cores beside
 * others' calls). A holder whose cost is known once done (a bulk file's rows) may instead hold the key's next
 * holder back when it releases, if the key yields then. Otherwise any number run (the caller's semaphores
 * bound them). The last check and the count happen in one step, so holders starting together cannot all pass.
 */
export class YieldGate {
  private readonly running = new Map<string, number>();
  private readonly waited = new Map<string, number>();
  /** Until when each key's next holder is held back while it yields (kept until then). */
  private readonly nextAt = new Map<string, number>();
  private readonly spacingMs: number;

  constructor(
    private readonly busy: (key: string) => boolean,
    startsPerSecond = 0,
  ) {
    this.spacingMs = startsPerSecond > 0 ? 1000 / startsPerSecond : 0;
  }

  /**
   * Waits for its turn (or until `stopped()`; past `wait.maxWaitMs`, throws `wait.error()`), counts the holder
   * and answers its release, which may hold the key's next holder back `holdMs` if the key yields then.
   */
  async enter(key: string, stopped: () => boolean = () => false, wait?: YieldWait): Promise<(holdMs?: number) => void> {
    const deadline = wait ? performance.now() + wait.maxWaitMs : Infinity;
    for (let first = true; !stopped() && this.heldBack(key) && this.busy(key); first = false) {
      if (first) this.waited.set(key, (this.waited.get(key) ?? 0) + 1);
      if (performance.now() >= deadline) throw wait!.error();
      await new Promise((resolve) => setTimeout(resolve, YIELD_POLL_MS));
    }
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    if (this.spacingMs) this.holdBack(key, this.spacingMs);
    let released = false;
    return (holdMs = 0) => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
      if (holdMs > 0 && this.busy(key)) this.holdBack(key, holdMs);
    };
  }

  /** How many holders of `key` had to wait for their turn so far. */
  waitsOf(key: string): number {
    return this.waited.get(key) ?? 0;
  }

  private holdBack(key: string, ms: number): void {
    this.nextAt.set(key, Math.max(performance.now() + ms, this.nextAt.get(key) ?? 0));
  }

  /** Whether a holder of `key` would have to wait if the work it yields to is being served. */
  private heldBack(key: string): boolean {
    if ((this.running.get(key) ?? 0) >= 1) return true;
    const now = performance.now();
    for (const [other, at] of this.nextAt) if (now >= at) this.nextAt.delete(other);
    return this.nextAt.has(key);
  }
}
