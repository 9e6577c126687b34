/**
 * Runs batch tasks in the background. A pg-boss job is one turn of work on one task: it moves the task to
 * STARTED, claims lines with leases (bounded concurrency per process), downloads and analyses each URL at
 * background inference priority, and stores each line's output in the same statement that counts it. When
 * every line is answered, the result files are written and the task becomes SUCCESS. A killed process
 * loses only its claims in flight: their leases run out and another turn answers them, so every line is
 * answered exactly once. Turns are budgeted; a long task continues in the next turn.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { isApiError } from '@iris/shared';
import { fetchImage, ImageFetchError, type FetchOptions } from '../../images/image-fetcher.js';
import { RECENT_CALL_MS } from '../../http/account-calls.hook.js';
import { inTransaction } from '../../db/transaction.js';
import type { InferencePool } from '../../inference/inference-pool.js';
import { Semaphore, YieldGate } from '../downloads/semaphore.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import { withUsageScope } from '../../util/usage-scope.js';
import type { BatchConfig } from './batch-config.js';
import { claimItems, completeItem, deleteItems, releaseItem, renewLeases, unfinishedItems, type ClaimedItem } from './batch-item.repo.js';
import { recordRate } from './batch-rate.repo.js';
import { writeResultFiles } from './batch-result-files.js';
import { lineError, ServiceGoneError, type BatchServices, type BatchService } from './batch-services.js';
import { markFailed, markStarted, markSucceeded, taskById, taskQueue, type BatchTaskRow } from './batch-task.repo.js';

export const BATCH_JOB = 'batch.run-task';

export interface BatchJobData {
  taskId: string;
}

interface JobSender {
  send(name: string, data: object, options?: { startAfter?: Date; singletonKey?: string }): Promise<string | null>;
}

export interface BatchWorkerDeps {
  pool: pg.Pool;
  queue: JobSender;
  log: FastifyBaseLogger;
  services: BatchServices;
  /** A background-priority view of the inference pool. */
  inference: InferencePool;
  /** Whether an account other than the one named has calls being served in this process. */
  othersActive?: (account: string) => boolean;
  fetch: Partial<FetchOptions>;
  config: BatchConfig;
  taskDir(taskId: string): string;
  /** The usage counters (batch lines per account and service). */
  usage?: Pick<UsageMeter, 'add'>;
}

/** Transient download failures are tried again after these pauses (then answered with an error line). */
const DOWNLOAD_RETRY_MS = [1000, 3000];
/** A turn's measurement feeds the rolling average only when it covers at least this many images. */
const MIN_RATE_SAMPLE = 5;

interface AnsweredLine {
  /** The line of the result file. */
  output: string;
  /** True for an error line. */
  failed: boolean;
}

function errorLine(item: ClaimedItem, code: number, message: string): string {
  return JSON.stringify({ url: item.url, line: item.line, error: { error_code: code, message } });
}

interface Claim {
  taskId: string;
  line: number;
  token: string;
}

export class BatchWorker {
  private readonly slots: Semaphore;
  /**
   * While interactive analysis runs, or another account's calls are being served, an account's batch lines
   * go one at a time, paced (their downloads and decodes too). Keyed by account, so several tasks of one account
   * do not add up to several lines.
   */
  private readonly yieldGate: YieldGate;
  private readonly inFlight = new Set<Claim>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly deps: BatchWorkerDeps) {
    this.slots = new Semaphore(deps.config.concurrency);
    this.yieldGate = new YieldGate(
      (account) => deps.inference.interactiveActive(RECENT_CALL_MS) || (deps.othersActive?.(account) ?? false),
      deps.config.yieldingPerSecond,
    );
    this.heartbeat = setInterval(() => void this.renew(), (deps.config.leaseSeconds * 1000) / 3);
    this.heartbeat.unref();
  }

  /** Queues a turn for the task (one waiting turn per task at most: the queue's `short` policy). */
  async enqueue(taskId: string, startAfter?: Date): Promise<void> {
    await this.deps.queue.send(BATCH_JOB, { taskId } satisfies BatchJobData, { singletonKey: taskId, ...(startAfter ? { startAfter } : {}) });
  }

  /** Boot-time recovery: every PENDING or STARTED task gets a turn (its job may have died with a process). */
  async recover(): Promise<number> {
    const queue = await taskQueue(this.deps.pool);
    for (const task of queue) await this.enqueue(task.id);
    return queue.length;
  }

  /** One turn of work on a task (the job handler). */
  async runTurn(taskId: string): Promise<{ processed: number }> {
    if (this.closed) {
      await this.handOver(taskId);
      return { processed: 0 };
    }
    let task = await taskById(this.deps.pool, taskId);
    if (task?.state === 'PENDING') task = (await markStarted(this.deps.pool, taskId)) ?? (await taskById(this.deps.pool, taskId));
    if (!task || task.state !== 'STARTED') return { processed: 0 };

    const resolved = await this.deps.services.resolve(task.account_id, task.service_id);
    if (!resolved.ok) {
      // The task itself cannot run (e.g. its custom classifier was deleted): the only way to FAILURE.
      await this.fail(task, `service ${task.service_id} cannot run: ${resolved.error.message}`);
      return { processed: 0 };
    }
    const started = performance.now();
    const deadline = Date.now() + this.deps.config.jobBudgetMs;
    let processed = 0;
    const work = async () => {
      while (!this.closed && Date.now() < deadline) {
        const releaseTurn = await this.yieldGate.enter(String(task.account_id), () => this.closed);
        const releaseSlot = await this.slots.acquire();
        const release = () => {
          releaseSlot();
          releaseTurn();
        };
        try {
          if (this.closed) return;
          const token = randomUUID();
          const [item] = await claimItems(this.deps.pool, taskId, 1, this.deps.config.leaseSeconds, token);
          if (!item) return;
          if (await this.answer(task, resolved.service, item, token)) processed++;
        } finally {
          release();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: this.deps.config.concurrency }, work));
    } catch (err) {
      if (!(err instanceof ServiceGoneError)) throw err;
      await this.fail(task, `service ${task.service_id} cannot run any more: ${err.message}`);
      return { processed };
    }
    if (processed >= MIN_RATE_SAMPLE) await recordRate(this.deps.pool, task.service_id, processed, (performance.now() - started) / 1000);
    if (this.closed) {
      await this.handOver(taskId);
      return { processed };
    }

    const left = await unfinishedItems(this.deps.pool, taskId);
    if (left.n === 0) await this.finish(task);
    else if (Date.now() >= deadline) await this.enqueue(taskId);
    else await this.enqueue(taskId, new Date(Math.max(Date.now() + 1000, (left.leaseEnds?.getTime() ?? 0) + 500)));
    return { processed };
  }

  /** This process is stopping: the rest of the task goes to whichever process takes the next turn. */
  private async handOver(taskId: string): Promise<void> {
    await this.enqueue(taskId).catch((err: unknown) => this.deps.log.warn({ err, task: taskId }, 'could not queue the next batch turn'));
  }

  /** Stops claiming; lines in flight are given back if their analysis cannot finish. */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
  }

  /** Answers one claimed line; false when the claim was lost or the process is stopping. */
  private async answer(task: BatchTaskRow, service: BatchService, item: ClaimedItem, token: string): Promise<boolean> {
    const claim: Claim = { taskId: task.id, line: item.line, token };
    this.inFlight.add(claim);
    try {
      let line: AnsweredLine;
      if (item.attempts > this.deps.config.maxAttempts) {
        const error = lineError(service, 'failed', `the image could not be analysed in ${this.deps.config.maxAttempts} attempts`);
        line = { output: errorLine(item, error.code, error.message), failed: true };
      } else {
        // The line's model work counts as the task's account's usage of the task's service.
        line = await withUsageScope({ accountId: task.account_id, service: task.service_id }, () => this.analyse(task, service, item));
      }
      // A failure while stopping may come from the stopping itself (closed inference pool): give the line back.
      if (this.closed && line.failed) {
        await releaseItem(this.deps.pool, task.id, item.line, token);
        return false;
      }
      const completed = await completeItem(this.deps.pool, task.id, item.line, token, line.output);
      if (completed) this.deps.usage?.add({ accountId: task.account_id, service: task.service_id }, { batchLines: 1 });
      return completed;
    } catch (err) {
      if (this.closed) {
        await releaseItem(this.deps.pool, task.id, item.line, token).catch(() => {});
        return false;
      }
      throw err;
    } finally {
      this.inFlight.delete(claim);
    }
  }

  /** The JSON line of one URL: the service's full envelope, or the error it answered. */
  private async analyse(task: BatchTaskRow, service: BatchService, item: ClaimedItem): Promise<AnsweredLine> {
    const startedAt = performance.now();
    const failed = (code: number, message: string): AnsweredLine => ({ output: errorLine(item, code, message), failed: true });
    let bytes: Uint8Array;
    try {
      bytes = await this.download(item.url);
    } catch (err) {
      if (!(err instanceof ImageFetchError)) throw err;
      const error = lineError(service, 'download', `image cannot be downloaded: ${err.message}`);
      return failed(error.code, error.message);
    }
    try {
      const result = await service.run({
        bytes,
        downloadMs: performance.now() - startedAt,
        params: task.params,
        lang: task.lang,
        requestId: `${task.id}-${item.line}`,
        startedAt,
        // The task's account: its batch work counts against the account's share of the threads.
        pool: this.deps.inference.forAccount(task.account_id),
      });
      return { output: JSON.stringify({ url: item.url, line: item.line, result }), failed: false };
    } catch (err) {
      if (isApiError(err)) return failed(err.code, err.message);
      if (this.closed || err instanceof ServiceGoneError) throw err;
      this.deps.log.error({ err, task: task.id, line: item.line }, 'batch line failed');
      const error = lineError(service, 'failed', 'analysis failed');
      return failed(error.code, error.message);
    }
  }

  private async download(url: string): Promise<Uint8Array> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await fetchImage(url, this.deps.fetch)).bytes;
      } catch (err) {
        const transient = err instanceof ImageFetchError && (err.kind === 'timeout' || err.kind === 'network' || (err.kind === 'http-status' && (err.status ?? 0) >= 500));
        const pause = DOWNLOAD_RETRY_MS[attempt];
        if (!transient || pause === undefined || this.closed) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Writes the result files and marks SUCCESS, once: the task row is locked, and only a STARTED task finishes. */
  private async finish(task: BatchTaskRow): Promise<void> {
    const client = await this.deps.pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ state: string }>('SELECT state FROM batch_tasks WHERE id = $1 FOR UPDATE', [task.id]);
      if (locked.rows[0]?.state !== 'STARTED' || (await unfinishedItems(client, task.id)).n > 0) {
        await client.query('ROLLBACK');
        return;
      }
      const files = await writeResultFiles(client, task.id, this.deps.taskDir(task.id), this.deps.config.linesPerFile);
      const sizes = await Promise.all(files.map(async (file) => (await stat(path.join(this.deps.taskDir(task.id), file))).size));
      await markSucceeded(client, task.id, files, sizes.reduce((sum, size) => sum + size, 0));
      await deleteItems(client, task.id);
      await client.query('COMMIT');
      this.deps.log.info({ task: task.id, total: task.total, files: files.length }, 'batch task finished');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  private async fail(task: BatchTaskRow, message: string): Promise<void> {
    if (await inTransaction(this.deps.pool, (client) => markFailed(client, task.id, message))) {
      await deleteItems(this.deps.pool, task.id);
      this.deps.log.warn({ task: task.id, message }, 'batch task failed');
    }
  }

  private async renew(): Promise<void> {
    const byTask = new Map<string, Map<string, number[]>>();
    for (const claim of this.inFlight) {
      const tokens = byTask.get(claim.taskId) ?? new Map<string, number[]>();
      tokens.set(claim.token, [...(tokens.get(claim.token) ?? []), claim.line]);
      byTask.set(claim.taskId, tokens);
    }
    try {
      for (const [taskId, tokens] of byTask) {
        for (const [token, lines] of tokens) await renewLeases(this.deps.pool, taskId, lines, token, this.deps.config.leaseSeconds);
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'renewing batch leases failed');
    }
  }
}
