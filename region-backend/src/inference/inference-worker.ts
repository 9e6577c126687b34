import { parentPort, type TransferListItem } from 'node:worker_threads';
import { TASKS, type TaskHandler } from './task-registry.js';

export interface TaskRequest { id: number; task: string; payload: unknown }
export type TaskResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { message: string; name: string; code?: string } };

const handlers = new Map<string, Promise<TaskHandler>>();

function handlerFor(task: string): Promise<TaskHandler> {
  let handler = handlers.get(task);
  if (!handler) {
    const load = TASKS[task];
    if (!load) return Promise.reject(new Error(`unknown inference task ${task}`));
    handler = load().then((m) => m.default);
    handlers.set(task, handler);
  }
  return handler;
}

/** Collects ArrayBuffers of typed arrays in a result so they move to the main thread instead of being copied. */
function transferablesOf(value: unknown, out: TransferListItem[] = [], depth = 0): TransferListItem[] {
  if (depth > 4 || value === null || typeof value !== 'object') return out;
  if (ArrayBuffer.isView(value)) {
    const buffer = value.buffer;
    if (buffer instanceof ArrayBuffer && !out.includes(buffer) && value.byteLength === buffer.byteLength) out.push(buffer);
    return out;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value)) transferablesOf(child, out, depth + 1);
  return out;
}

parentPort!.on('message', async (request: TaskRequest) => {
  try {
    const handler = await handlerFor(request.task);
    const result = await handler(request.payload);
    parentPort!.postMessage({ id: request.id, ok: true, result } satisfies TaskResponse, transferablesOf(result));
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    parentPort!.postMessage({
      id: request.id,
      ok: false,
      error: { message: e.message, name: e.name, ...(typeof code === 'string' ? { code } : {}) },
    } satisfies TaskResponse);
  }
});

// Tells the pool this thread has loaded: its time limits start counting from here.
parentPort!.postMessage({ ready: true });
