/** Messages between the pool and its worker threads (inference-pool.ts ↔ inference-worker.ts). */

/** `batch` (batched tasks only): several payloads, answered by one `BatchItem` each, in order. */
export interface TaskRequest { id: number; task: string; payload: unknown; batch?: unknown[] }
/**
 * Asks a thread to end once what it runs has finished: stopping it mid-call (Worker.terminate) while model code
 * runs natively can abort the whole process.
 */
export interface StopRequest { stop: true }
export interface TaskError { message: string; name: string; code?: string }
export type BatchItem = { ok: true; result: unknown } | { ok: false; error: TaskError };
export type TaskResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: TaskError };
