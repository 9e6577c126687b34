/**
 * Every inference task a worker thread can run. A task module's default export takes a payload and returns
 * a result; it loads its models at module scope (or lazily, once), so each thread loads each model once.
 * Add a line here for a new task; start-up fails on an unknown task name.
 */
import type { BatchItem } from './inference-worker.js';

export type TaskHandler = (payload: unknown) => Promise<unknown> | unknown;

/** A task module: `default` runs one payload; `batch` (optional) runs several as one model batch. */
export interface TaskModule {
  default: TaskHandler;
  batch?: (payloads: unknown[]) => Promise<BatchItem[]>;
}

/**
 * Tasks whose queued background jobs the pool gathers into one batch (up to this many per batch), so the
 * model runs them together. Interactive calls of these tasks still run one by one, ahead of the batches.
 */
export const BATCHED_TASKS: Partial<Record<string, number>> = { embed: 8, 'search-index-embed': 8, 'classifier-features': 8 };

export const TASKS: Record<string, () => Promise<TaskModule>> = {
  ping: () => import('./tasks/ping.task.js'),
  'prepare-models': () => import('./tasks/prepare-models.task.js'),
  'image-decode': () => import('./tasks/image-decode.task.js'),
  embed: () => import('./tasks/embed.task.js'),
  'search-index-embed': () => import('./tasks/search-index-embed.task.js'),
  'search-query-embed': () => import('./tasks/search-query-embed.task.js'),
  'search-verify': () => import('./tasks/search-verify.task.js'),
  'search-query-features': () => import('./tasks/search-query-features.task.js'),
  'vision-detect': () => import('./tasks/vision-detect.task.js'),
  'vision-classify': () => import('./tasks/vision-classify.task.js'),
  'face-attributes': () => import('./tasks/face-attributes.task.js'),
  'image-stats': () => import('./tasks/image-stats.task.js'),
  'ocr-detect': () => import('./tasks/ocr-detect.task.js'),
  'ocr-recognise': () => import('./tasks/ocr-recognise.task.js'),
  'color-palette': () => import('./tasks/color-palette.task.js'),
  'dressing-analyse': () => import('./tasks/dressing-analyse.task.js'),
  'logo-extract': () => import('./tasks/logo-extract.task.js'),
  'logo-match': () => import('./tasks/logo-match.task.js'),
  'classifier-features': () => import('./tasks/classifier-features.task.js'),
  'classifier-train': () => import('./tasks/classifier-train.task.js'),
  'classifier-predict': () => import('./tasks/classifier-predict.task.js'),
};

export type TaskName = keyof typeof TASKS & string;
