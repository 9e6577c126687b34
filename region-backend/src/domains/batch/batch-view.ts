/**
 * Task details as the specification gives them per state: always csv, received_time, service_id, state,
 * task_id, total; SUCCESS adds download_urls and success; PENDING adds estimated_processing_time and
 * estimated_waiting_time; STARTED adds estimated_processing_time and success (progress).
 */
import type { z } from 'zod';
import { formatTime, type TaskDetails, type TaskSummary } from '@iris/shared';
import { processingSeconds, waitingSeconds, type RateOf } from './batch-estimates.js';
import { INPUT_FILE } from './batch-links.js';
import type { BatchTaskRow, QueuedTask } from './batch-task.repo.js';

export interface ViewContext {
  /** Signed link to one of the task's files. */
  link(task: BatchTaskRow, file: string): string;
  queue: readonly QueuedTask[];
  rateOf: RateOf;
}

/** The answer's fields come out in the order of the contract's schema (the serializer writes them so). */
export function taskDetails(task: BatchTaskRow, ctx: ViewContext): z.input<typeof TaskDetails> {
  const details: z.input<typeof TaskDetails> = {
    csv: ctx.link(task, INPUT_FILE),
    received_time: formatTime(task.received_at),
    service_id: task.service_id,
    state: task.state,
    task_id: task.id,
    total: task.total,
  };
  const remaining = task.total - task.success;
  switch (task.state) {
    case 'SUCCESS':
      details.download_urls = task.result_files.map((file) => ctx.link(task, file));
      details.success = task.success;
      break;
    case 'PENDING':
      details.estimated_processing_time = processingSeconds(remaining, task.service_id, ctx.rateOf);
      details.estimated_waiting_time = waitingSeconds(ctx.queue, task.id, ctx.rateOf);
      break;
    case 'STARTED':
      details.estimated_processing_time = processingSeconds(remaining, task.service_id, ctx.rateOf);
      details.success = task.success;
      break;
    default:
      break;
  }
  return details;
}

/** The answer of prepare and apply: estimates, state, task_id, total. */
export function taskSummary(task: BatchTaskRow, ctx: ViewContext): z.input<typeof TaskSummary> {
  return {
    estimated_processing_time: processingSeconds(task.total - task.success, task.service_id, ctx.rateOf),
    estimated_waiting_time: task.state === 'STARTED' ? 0 : waitingSeconds(ctx.queue, task.id, ctx.rateOf),
    state: task.state,
    task_id: task.id,
    total: task.total,
  };
}
