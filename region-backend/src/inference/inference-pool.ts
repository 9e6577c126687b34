import os from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';
import type { TaskRequest, TaskResponse } from './inference-worker.js';
import { TASKS } from './task-registry.js';

export type Priority = 'interactive' | 'background';

export interface RunOptions {
  /** Interactive work (API queries) always goes before background work (indexing, training, batch). */
  priority?: Priority;
  transfer?: TransferListItem[];
  /** Time limit once the task is on a thread (default: the pool's); past it the thread is terminated and replaced. */
  timeoutMs?: number;
}

export interface PoolOptions {
  /** Default time limit of a task on a thread, in ms (0 = none). */
  taskTimeoutMs?: number;
}

/** A task that ran past its time limit: its thread was terminated and replaced, nothing else was affected. */
export class InferenceTimeoutError extends Error {
  override readonly name = 'InferenceTimeoutError';
  constructor(
    readonly task: string,
    readonly timeoutMs: number,
  ) {
    super(`${task} did not finish within ${timeoutMs} ms`);
  }
}

/** An error raised inside a task, re-created on the calling side. */
export class InferenceTaskError extends Error {
  readonly code: string | undefined;
  constructor(message: string, name: string, code?: string) {
    super(message);
    this.name = name === 'Error' ? 'InferenceTaskError' : name;
    this.code = code;
  }
}

interface Job {
  request: TaskRequest;
  transfer: TransferListItem[];
  timeoutMs: number;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** `ready` once the thread has loaded (time limits count from then, not from a fresh thread's start-up). */
interface Slot { worker: Worker; job: Job | null; ready: boolean; timer?: NodeJS.Timeout }

const entry = new URL(`./inference-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
const bootstrap = new URL('./worker-bootstrap.mjs', import.meta.url);

/**
 * A fixed pool of worker threads that run model code, so the request event loop never does.
 * Two queues: interactive jobs are always taken before background ones.
 */
export class InferencePool {
  private readonly slots: Slot[] = [];
  private readonly queues: Record<Priority, Job[]> = { interactive: [], background: [] };
  private nextId = 1;
  private closed = false;

  constructor(
    readonly size: number = Math.max(1, os.availableParallelism()),
    private readonly options: PoolOptions = {},
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  run<T = unknown>(task: string, payload: unknown, options: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('inference pool is closed'));
    if (!TASKS[task]) return Promise.reject(new Error(`unknown inference task ${task}`));
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.options.taskTimeoutMs ?? 0;
      const job: Job = { request: { id: this.nextId++, task, payload }, transfer: options.transfer ?? [], timeoutMs, resolve: resolve as (v: unknown) => void, reject };
      this.queues[options.priority ?? 'interactive'].push(job);
      this.dispatch();
    });
  }

  /** Jobs waiting (not yet on a thread), per priority. */
  get waiting(): Record<Priority, number> {
    return { interactive: this.queues.interactive.length, background: this.queues.background.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queues.interactive, ...this.queues.background]) job.reject(new Error('inference pool is closed'));
    this.queues.interactive = [];
    this.queues.background = [];
    for (const slot of this.slots) clearTimeout(slot.timer);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(bootstrap, { workerData: { entry } });
    const slot: Slot = { worker, job: null, ready: false };
    worker.on('message', (response: TaskResponse | { ready: true }) => {
      if ('ready' in response) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      slot.job = null;
      clearTimeout(slot.timer);
      worker.unref();
      if (job && job.request.id === response.id) {
        if (response.ok) job.resolve(response.result);
        else job.reject(new InferenceTaskError(response.error.message, response.error.name, response.error.code));
      }
      this.dispatch();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', (code) => {
      if (!this.closed && code !== 0) this.replace(slot, new Error(`inference worker exited with code ${code}`));
    });
    // Idle threads must not keep the process alive; a thread with a job does (see dispatch).
    worker.unref();
    return slot;
  }

  /** A crashed thread fails only its own job; a fresh thread takes its place. */
  private replace(slot: Slot, err: unknown): void {
    if (this.closed) return;
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    clearTimeout(slot.timer);
    slot.job?.reject(err);
    slot.job = null;
    void slot.worker.terminate();
    this.slots[index] = this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || !slot.ready) continue;
      const job = this.queues.interactive.shift() ?? this.queues.background.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request, job.transfer);
      if (job.timeoutMs > 0) {
        slot.timer = setTimeout(() => {
          if (slot.job === job) this.replace(slot, new InferenceTimeoutError(job.request.task, job.timeoutMs));
        }, job.timeoutMs);
      }
    }
  }
}
