/**
 * Keeps training going across crashes and restarts: at start-up and then every `pollMs`, each process queues
 * a training job for every unfinished service. A service whose run is alive keeps its advisory lock, so the
 * extra job returns at once; one whose process died has lost it, so the job picks the work up where the
 * stored state says it stopped. At most one job per service waits in the queue (singleton key).
 */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { unfinishedServiceIds } from './custom-service.repo.js';
import type { TrainingRunner } from './training-run.js';

export interface SupervisorDeps {
  pool: pg.Pool;
  runner: Pick<TrainingRunner, 'enqueue'>;
  log: FastifyBaseLogger;
  intervalMs: number;
}

export class TrainingSupervisor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: SupervisorDeps) {}

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

  /** Queues a run for every unfinished service; returns how many there were. */
  async pollOnce(): Promise<number> {
    const ids = await unfinishedServiceIds(this.deps.pool);
    for (const id of ids) await this.deps.runner.enqueue(id);
    return ids.length;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.pollOnce();
    } catch (err) {
      if (!this.stopped) this.deps.log.warn({ err }, 'custom training poll failed');
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.deps.intervalMs);
    this.timer.unref();
  }
}
