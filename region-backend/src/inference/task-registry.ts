/**
 * Every inference task a worker thread can run, and their types (`TaskMap`). A task module's default export
 * takes its payload and returns its result; it loads its models at module scope (or lazily, once), so each
 * thread loads each model once. Add a line here for a new task: its payload and result types join the
 * `TaskMap`, and `pool.run` checks both at every call site. Start-up fails on an unknown task name.
 */
import type { BatchItem } from './task-protocol.js';

/** A task module: `default` runs one payload; `batch` (optional) runs several as one model batch. */
export interface TaskModule {
  default: (payload: never) => unknown;
  batch?: (payloads: never[]) => Promise<BatchItem[]>;
}

export const TASKS = {
  ping: () => import('./tasks/ping.task.js'),
  'prepare-models': () => import('./tasks/prepare-models.task.js'),
  'warm-models': () => import('./tasks/warm-models.task.js'),
  'image-decode': () => import('./tasks/image-decode.task.js'),
  embed: () => import('./tasks/embed.task.js'),
  'search-index-embed': () => import('./tasks/search-index-embed.task.js'),
  'search-query-embed': () => import('./tasks/search-query-embed.task.js'),
  'search-verify': () => import('./tasks/search-verify.task.js'),
  'search-verify-windows': () => import('./tasks/search-verify-windows.task.js'),
  'search-query-features': () => import('./tasks/search-query-features.task.js'),
  'search-query-regions': () => import('./tasks/search-query-regions.task.js'),
  'search-window-features': () => import('./tasks/search-window-features.task.js'),
  'search-query-inset': () => import('./tasks/search-query-inset.task.js'),
  'search-query-turns': () => import('./tasks/search-query-turns.task.js'),
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
} satisfies Record<string, () => Promise<TaskModule>>;

export type TaskName = keyof typeof TASKS;

type TaskFunction<K extends TaskName> = Awaited<ReturnType<(typeof TASKS)[K]>>['default'];

/** Each task's `{payload, result}`, read off its module's default export: the typed thread boundary. */
export type TaskMap = {
  [K in TaskName]: { payload: Parameters<TaskFunction<K>> extends [infer P, ...unknown[]] ? P : undefined; result: Awaited<ReturnType<TaskFunction<K>>> };
};
export type TaskPayload<K extends TaskName> = TaskMap[K]['payload'];
export type TaskResult<K extends TaskName> = TaskMap[K]['result'];

/**
 * Tasks whose queued background jobs the pool gathers into one batch (up to this many per batch), so the
 * model runs them together. Interactive calls of these tasks still run one by one, ahead of the batches.
 */
export const BATCHED_TASKS: Partial<Record<TaskName, number>> = { embed: 8, 'search-index-embed': 8, 'classifier-features': 8 };

export function isTaskName(task: string): task is TaskName {
  return Object.hasOwn(TASKS, task);
}

/** The loader of a task named at run time (the worker's side of the boundary), or undefined. */
export function taskLoader(task: string): (() => Promise<TaskModule>) | undefined {
  return isTaskName(task) ? TASKS[task] : undefined;
}
