/**
 * Estimates in whole seconds. Processing: the task's unanswered lines × its service's seconds per image.
 * Waiting: the same sum over every task ahead of it in the region's queue (PENDING and STARTED tasks applied
 * before it; for a task not applied yet, all of them). Seconds per image is the measured rolling average of
 * the service (batch-rate.repo.ts), or an initial value per service family until work has been measured.
 */
import { serviceById, type AnalysisFamily } from '@iris/shared';
import type { QueuedTask } from './batch-task.repo.js';

/**
 * Seconds per image before any measurement, per family: rounded from `npm run bench -- batch` on two cores
 * with the default pack (docs/batch.md); custom classifiers count as classify.
 */
export const INITIAL_SECONDS_PER_IMAGE: Record<AnalysisFamily, number> = {
  detect: 0.5,
  classify: 0.3,
  color: 0.1,
  dressing: 0.8,
};

export type RateOf = (serviceId: string) => number;

export function rateFunction(measured: ReadonlyMap<string, number>, initialOverride?: number): RateOf {
  return (serviceId) => measured.get(serviceId) ?? initialOverride ?? INITIAL_SECONDS_PER_IMAGE[serviceById(serviceId)?.family ?? 'classify'];
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
