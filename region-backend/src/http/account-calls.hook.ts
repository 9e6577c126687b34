/**
 * Calls of each account in flight in this process, whatever their kind. The inference and decode pools ask
 * it whether a task belongs to an account's only call (first-tier threads) or to one of several at once (the
 * low-priority tier): inside a pool alone, a flood's tasks can look single, because the decode stage before
 * the model hands them over one at a time.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { releaseWhenAnswered } from './when-answered.js';

declare module 'fastify' {
  interface FastifyRequest {
    irisCallAccount?: string;
  }
  interface FastifyInstance {
    /** Calls of each account in flight in this process (pools and background work ask it). */
    accountCalls: AccountCalls;
  }
}

/** How long after its last call an account still counts as being served (a sequential caller's gaps). */
export const RECENT_CALL_MS = 250;

/**
 * How long an account that had several calls at once keeps counting as a parallel caller: a flood paced
 * below the process's speed (the edge's rate limit) often has one call in flight, but not for long.
 */
export const PARALLEL_MEMORY_MS = 1_000;

export class AccountCalls {
  private readonly counts = new Map<string, number>();
  /** When each account's last call ended (kept for RECENT_CALL_MS). */
  private readonly ended = new Map<string, number>();
  /** When each account last had several calls at once (kept for PARALLEL_MEMORY_MS). */
  private readonly parallelAt = new Map<string, number>();

  /** Calls of `account` (the pools' account key: the id as a string) being served now. */
  readonly inFlight = (account: string): number => this.counts.get(account) ?? 0;

  /**
   * What the pools go by: the account's calls in flight, but at least 2 while it had several at once within
   * PARALLEL_MEMORY_MS. A sequential caller counts 1; a parallel one stays on the low-priority tier between
   * its bursts instead of taking a first-tier thread whenever its in-flight count dips to one.
   */
  readonly concurrency = (account: string): number => {
    const now = this.inFlight(account);
    const at = this.parallelAt.get(account);
    if (at === undefined) return now;
    if (performance.now() - at > PARALLEL_MEMORY_MS) {
      this.parallelAt.delete(account);
      return now;
    }
    return Math.max(now, 2);
  };

  /**
   * Whether an account other than `account` is being served: a call in flight, or one that ended within
   * `withinMs` (the gap before a sequential caller's next call). Background work of `account` yields then.
   */
  readonly othersActive = (account: string, withinMs = RECENT_CALL_MS): boolean => {
    for (const other of this.counts.keys()) if (other !== account) return true;
    const now = performance.now();
    let active = false;
    for (const [other, at] of this.ended) {
      if (at < now - Math.max(withinMs, RECENT_CALL_MS)) this.ended.delete(other);
      else if (other !== account && at >= now - withinMs) active = true;
    }
    return active;
  };

  enter(account: string): void {
    const count = (this.counts.get(account) ?? 0) + 1;
    this.counts.set(account, count);
    if (count > 1) this.parallelAt.set(account, performance.now());
  }

  leave(account: string): void {
    const left = (this.counts.get(account) ?? 1) - 1;
    if (left > 0) this.counts.set(account, left);
    else this.counts.delete(account);
    this.ended.set(account, performance.now());
  }
}

/** Counts every call that names an account (after the edge-signature hook, which sets `request.ctx`). */
export function registerAccountCalls(app: FastifyInstance): AccountCalls {
  const calls = new AccountCalls();
  const release = (request: FastifyRequest) => {
    const account = request.irisCallAccount;
    if (account === undefined) return;
    request.irisCallAccount = undefined;
    calls.leave(account);
  };
  app.addHook('onRequest', async function countCalls(request) {
    if (!request.ctx) return;
    request.irisCallAccount = String(request.ctx.accountId);
    calls.enter(request.irisCallAccount);
  });
  releaseWhenAnswered(app, release);
  return calls;
}
