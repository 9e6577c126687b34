/**
 * The light poller every backend process runs: every couple of seconds it enqueues the indexing job of each
 * service whose set changed after what the service applied (one cheap SQL query for all services), brings
 * the indexes this process holds up to date (others load when a query needs them, see service-indexes.ts),
 * and saves changed ones now and then.
 */
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from '../../jobs/periodic-task.js';
import { SCENARIOS } from '@iris/shared';
import type { JobQueue } from '../../plugins/queue.plugin.js';
import type { EmbedderRegistry } from './embedder-registry.js';
import { INDEX_JOB, type IndexJobData } from './search-indexer.js';
import { allServiceStates, staleServiceIds } from './search-service.repo.js';
import type { ServiceIndexes } from './service-indexes.js';

export interface PollerDeps {
  pool: pg.Pool;
  queue: JobQueue;
  indexes: ServiceIndexes;
  log: FastifyBaseLogger;
  intervalMs: number;
  embedders: EmbedderRegistry;
}

export class IndexPoller {
  private readonly loop: PeriodicTask;

  constructor(private readonly deps: PollerDeps) {
    this.loop = new PeriodicTask({ name: 'search index poll', intervalMs: deps.intervalMs, log: deps.log, run: () => this.pollOnce() });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: enqueue stale services, bring the indexes of this process up to date, save due ones. */
  async pollOnce(): Promise<void> {
    const { pool, queue, indexes } = this.deps;
    const pipelines: Record<string, string> = {};
    for (const scenario of SCENARIOS) pipelines[scenario] = await this.deps.embedders.pipelineOf(scenario);
    for (const serviceId of await staleServiceIds(pool, pipelines)) {
      await queue.send(INDEX_JOB, { serviceId } satisfies IndexJobData, { singletonKey: serviceId });
    }
    await indexes.refresh(await allServiceStates(pool));
    await indexes.saveDue();
  }
}
