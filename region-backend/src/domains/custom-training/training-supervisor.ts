/**
 * Keeps training going across crashes and restarts: at start-up and then every `pollMs`, each process queues
 * a training job for every unfinished service. A service whose run is alive keeps its advisory lock, so the
 * extra job returns at once; one whose process died has lost it, so the job picks the work up where the
 * stored state says it stopped. At most one job per service waits in the queue (singleton key).
 */
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from '../../jobs/periodic-task.js';
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
  private readonly loop: PeriodicTask;

  constructor(private readonly deps: SupervisorDeps) {
    this.loop = new PeriodicTask({ name: 'custom training poll', intervalMs: deps.intervalMs, log: deps.log, run: () => this.pollOnce() });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Queues a run for every unfinished service; returns how many there were. */
  async pollOnce(): Promise<number> {
    const ids = await unfinishedServiceIds(this.deps.pool);
    for (const id of ids) await this.deps.runner.enqueue(id);
    return ids.length;
  }
}
