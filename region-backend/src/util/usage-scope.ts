/**
 * Who work is done for, for the usage counters: the account and the service a call or a batch line runs.
 * Carried by async context, so the inference pool can attribute a task's thread time to the call that
 * submitted it without every handler passing it down.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface UsageScope {
  accountId: number;
  service: string;
}

const storage = new AsyncLocalStorage<UsageScope>();

/** Runs `fn` with `scope` as the current usage scope (for the async work it starts too). */
export function withUsageScope<T>(scope: UsageScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The usage scope of the work running now, if any. */
export function currentUsageScope(): UsageScope | undefined {
  return storage.getStore();
}
