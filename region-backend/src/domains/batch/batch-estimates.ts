/**
 * Estimates in whole seconds. Processing: the task's unanswered lines × its service's seconds per image.
 * Waiting: the same sum over every task ahead of it in the region's queue (PENDING and STARTED tasks applied
 * before it; for a task not applied yet, all of them). Seconds per image is the measured rolling average of
 * the service (batch-rate.repo.ts), or an initial value per service until work has been measured.
 */
import { serviceById, type AnalysisFamily } from '@iris/shared';
import type { QueuedTask } from './batch-task.repo.js';

/**
 * Seconds per image before a service has been measured in the region: from `npm run bench -- batch` (face
 * detection, pornography, colour) and the single-query p50 of `npm run bench -- vision` / `-- color` for the
 * others (a batch task is bound by the same model time), on a shared two-core machine. docs/batch.md.
 */
export const INITIAL_SECONDS_PER_IMAGE: Readonly<Record<string, number>> = {
  _0000049: 0.2,
  _0000059: 0.5,
  _0000187: 1.0,
  _0000171: 0.4,
  _0000173: 0.7,
  _0000154: 0.6,
  _0000143: 0.5,
  _0000024: 0.15,
  _0000039: 1.3,
  _0000159: 1.7,
  _0000072: 0.1,
  _0000073: 0.1,
  _0000074: 0.3,
  _0000111: 1.0,
};

/** For services not in the table (logo detection, custom classifiers count as classify). */
export const INITIAL_SECONDS_PER_FAMILY: Record<AnalysisFamily, number> = {
  detect: 0.5,
  classify: 0.3,
  color: 0.1,
  dressing: 1.0,
};

export type RateOf = (serviceId: string) => number;

export function rateFunction(measured: ReadonlyMap<string, number>, initialOverride?: number): RateOf {
  return (serviceId) =>
    measured.get(serviceId) ?? initialOverride ?? INITIAL_SECONDS_PER_IMAGE[serviceId] ?? INITIAL_SECONDS_PER_FAMILY[serviceById(serviceId)?.family ?? 'classify'];
}

export function processingSeconds(remaining: number, serviceId: string, rateOf: RateOf): number {
  return Math.ceil(Math.max(0, remaining) * rateOf(serviceId));
}

/** Seconds of queued work ahead of a task: tasks applied before it, or every queued task when `taskId` is not queued. */
export function waitingSeconds(queue: readonly QueuedTask[], taskId: string, rateOf: RateOf): number {
  const position = queue.findIndex((t) => t.id === taskId);
  const ahead = position < 0 ? queue : queue.slice(0, position);
  return Math.ceil(ahead.reduce((sum, t) => sum + Math.max(0, t.remaining) * rateOf(t.service_id), 0));
}
