import { parentPort, workerData, type TransferListItem } from 'node:worker_threads';
import type { BatchItem, StopRequest, TaskError, TaskRequest, TaskResponse } from './task-protocol.js';
import { taskLoader, type TaskModule } from './task-registry.js';
import { requestThreadStop, threadStopSignal } from './thread-stop.js';

/** A task module as the worker calls it: the payload was typed by the caller (`pool.run`), it arrives unknown. */
type LoadedTask = { default: (payload: unknown) => unknown; batch?: (payloads: unknown[]) => Promise<BatchItem[]> };

const modules = new Map<string, Promise<LoadedTask>>();

function moduleFor(task: string): Promise<LoadedTask> {
  let module = modules.get(task);
  if (!module) {
    const load = taskLoader(task);
    if (!load) return Promise.reject(new Error(`unknown inference task ${task}`));
    module = load() as Promise<TaskModule> as Promise<LoadedTask>;
    modules.set(task, module);
  }
  return module;
}

function taskError(err: unknown): TaskError {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { message: e.message, name: e.name, ...(typeof code === 'string' ? { code } : {}) };
}

/** Runs a request: one payload through `default`, or a batch through `batch` (else `default` one by one). */
async function execute(request: TaskRequest): Promise<unknown> {
  const module = await moduleFor(request.task);
  if (!request.batch) return module.default(request.payload);
  if (module.batch) return module.batch(request.batch);
  const items: BatchItem[] = [];
  for (const payload of request.batch) {
    try {
      items.push({ ok: true, result: await module.default(payload) });
    } catch (err) {
      items.push({ ok: false, error: taskError(err) });
    }
  }
  return items;
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

/** Calls running on this thread, and the warm-up while it runs: a stop request waits for them. */
const inFlight = new Set<Promise<unknown>>();

function track<T>(work: Promise<T>): Promise<T> {
  inFlight.add(work);
  void work.finally(() => inFlight.delete(work)).catch(() => {});
  return work;
}

async function answer(request: TaskRequest): Promise<void> {
  try {
    const result = await execute(request);
    parentPort!.postMessage({ id: request.id, ok: true, result } satisfies TaskResponse, transferablesOf(result));
  } catch (err) {
    parentPort!.postMessage({ id: request.id, ok: false, error: taskError(err) } satisfies TaskResponse);
  }
}

parentPort!.on('message', (message: TaskRequest | StopRequest) => {
  if ('stop' in message) {
    // The thread ends by itself once its native work is done: closing the port leaves its event loop empty.
    requestThreadStop();
    void Promise.allSettled([...inFlight]).then(() => parentPort!.close());
    return;
  }
  void track(answer(message));
});

// A pool that warms its threads (IRIS_WARM_MODELS) has each load and run every model before its first job. A
// model that fails here is loaded again on first use, where its error reaches the call that needs it.
if ((workerData as { warm?: boolean } | null)?.warm) {
  const warm = moduleFor('warm-models').then((module) => (module.default as (stop: AbortSignal) => Promise<unknown>)(threadStopSignal));
  try {
    const warmed = await track(warm);
    if (!threadStopSignal.aborted) parentPort!.postMessage({ warmed });
  } catch (err) {
    if (!threadStopSignal.aborted) parentPort!.postMessage({ warmed: { error: taskError(err).message } });
  }
}

// Tells the pool this thread has loaded: its time limits start counting from here.
if (!threadStopSignal.aborted) parentPort!.postMessage({ ready: true });
