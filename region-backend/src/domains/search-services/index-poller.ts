/**
 * The light poller every backend process runs: every couple of seconds it enqueues the indexing job of each
 * service whose set changed after what the service applied (one cheap SQL query for all services), brings
 * the indexes this process holds up to date, and saves changed ones now and then. At start it loads the
 * index of every service, so the first query does not wait for a load.
 */
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { SCENARIOS } from '@iris/shared';
import type { JobQueue } from '../../plugins/queue.plugin.js';
import { pipelineOf } from './embedding-pipeline.js';
import { INDEX_JOB, type IndexJobData } from './search-indexer.js';
import { allServiceIds, serviceState, staleServiceIds } from './search-service.repo.js';
import type { ServiceIndexes } from './service-indexes.js';

export interface PollerDeps {
  pool: pg.Pool;
  queue: JobQueue;
  indexes: ServiceIndexes;
  log: FastifyBaseLogger;
  intervalMs: number;
}

const PIPELINES: Record<string, string> = Object.fromEntries(SCENARIOS.map((s) => [s, pipelineOf(s)]));

export class IndexPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: PollerDeps) {}

  start(): void {
    this.stopped = false;
    this.running = this.warm().then(() => this.tick());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One pass: enqueue stale services, refresh loaded indexes, save due ones. */
  async pollOnce(): Promise<void> {
    const { pool, queue, indexes } = this.deps;
    for (const serviceId of await staleServiceIds(pool, PIPELINES)) {
      await queue.send(INDEX_JOB, { serviceId } satisfies IndexJobData, { singletonKey: serviceId });
    }
    await indexes.refresh();
    await indexes.saveDue();
  }

  private async warm(): Promise<void> {
    for (const id of await allServiceIds(this.deps.pool).catch(() => [] as string[])) {
      if (this.stopped) return;
      const state = await serviceState(this.deps.pool, id);
      if (state) await this.deps.indexes.acquire(state).catch((err: unknown) => this.deps.log.warn({ err, serviceId: id }, 'loading a search index failed'));
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.pollOnce();
    } catch (err) {
      if (!this.stopped) this.deps.log.warn({ err }, 'search index poll failed');
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.deps.intervalMs);
    this.timer.unref();
  }
}
