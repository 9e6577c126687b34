/**
 * Sends due deliveries from the outbox, in every backend process: every poll it claims as many as it has free
 * slots, sends them without waiting for one another (a slow receiver holds one slot, never the loop), and
 * records each outcome: delivered, retried after an exponential back-off, or failed after the last attempt.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { WEBHOOK_HEADERS } from '@iris/shared';
import type { Resolver } from '../../images/address-guard.js';
import { PeriodicTask } from '../../jobs/periodic-task.js';
import { retryDelayMs, type WebhookConfig } from './webhook-config.js';
import { claimDue, forgetFinished, markAttemptFailed, markDelivered, type ClaimedDelivery } from './webhook-delivery.repo.js';
import { sendWebhook } from './webhook-sender.js';
import { signatureHeader } from './webhook-signature.js';

/**
 * A claim outlives the attempt's own time limit by this much before another process may take the row (a
 * process that stalls longer than this between the answer and recording it may cause one repeat, which the
 * claim token keeps from recording twice; deliveries are at least once).
 */
const LEASE_MARGIN_MS = 5_000;
/** Finished deliveries are forgotten at most this often. */
const FORGET_EVERY_MS = 10 * 60_000;

export interface DispatcherDeps {
  pool: pg.Pool;
  config: WebhookConfig;
  resolve: Resolver;
  log: FastifyBaseLogger;
}

export class WebhookDispatcher {
  private readonly task: PeriodicTask;
  private readonly inFlight = new Set<Promise<void>>();
  private forgottenAt = 0;

  constructor(private readonly deps: DispatcherDeps) {
    this.task = new PeriodicTask({ name: 'webhook dispatch', intervalMs: deps.config.pollMs, log: deps.log, run: () => this.poll() });
  }

  start(): void {
    this.task.start();
  }

  /** Stops claiming, then waits for the attempts in flight (each ends within its time limit). */
  async stop(): Promise<void> {
    await this.task.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async poll(): Promise<void> {
    const { pool, config } = this.deps;
    if (Date.now() - this.forgottenAt > FORGET_EVERY_MS) {
      this.forgottenAt = Date.now();
      await forgetFinished(pool, config.retentionMs);
    }
    const free = config.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await claimDue(pool, randomUUID(), free, config.timeoutMs + LEASE_MARGIN_MS);
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery).catch((err: unknown) => this.deps.log.warn({ err, delivery: delivery.id }, 'recording a webhook attempt failed (the lease expires and it is tried again)'));
      this.inFlight.add(attempt);
      void attempt.finally(() => this.inFlight.delete(attempt));
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { pool, config } = this.deps;
    const headers = {
      [WEBHOOK_HEADERS.signature]: signatureHeader(d.secret, Math.floor(Date.now() / 1000), d.body),
      [WEBHOOK_HEADERS.event]: d.event_type,
      [WEBHOOK_HEADERS.delivery]: d.event_id,
    };
    const outcome = await sendWebhook(d.url, d.body, headers, { timeoutMs: config.timeoutMs, resolve: this.deps.resolve, allowLoopback: config.allowLoopback });
    if (outcome.ok) {
      await markDelivered(pool, d, outcome.httpStatus!);
      return;
    }
    const retryInMs = d.attempts >= config.maxAttempts ? null : retryDelayMs(config, d.attempts);
    await markAttemptFailed(pool, d, { httpStatus: outcome.httpStatus, error: outcome.error ?? 'delivery failed', retryInMs });
    this.deps.log.info({ event: d.event_id, attempts: d.attempts, status: outcome.httpStatus, error: outcome.error, retryInMs }, 'webhook delivery failed');
  }
}
