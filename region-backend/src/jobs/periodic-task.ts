/**
 * Runs an async task now and then every `intervalMs` after the previous run ended (never two at once), until
 * stopped; `stop()` waits for a run in progress. A failed run is logged and the next one comes as usual.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface PeriodicTaskOptions {
  /** For the log line of a failed run. */
  name: string;
  intervalMs: number;
  log: FastifyBaseLogger;
  run: () => Promise<unknown>;
}

export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: PeriodicTaskOptions) {}

  start(): void {
    this.stopped = false;
    this.running = this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.options.run();
    } catch (err) {
      if (!this.stopped) this.options.log.warn({ err }, `${this.options.name} failed`);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.options.intervalMs);
    this.timer.unref();
  }
}
