import os from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';
import type { TaskRequest, TaskResponse } from './inference-worker.js';
import { TASKS } from './task-registry.js';

export type Priority = 'interactive' | 'background';

export interface RunOptions {
  /** Interactive work (API queries) always goes before background work (indexing, training, batch). */
  priority?: Priority;
  transfer?: TransferListItem[];
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

/** Told when a task leaves the queue for a thread, and when it is done (metrics). */
export interface PoolObserver {
  started(task: string, priority: Priority, waitedMs: number): void;
  finished(task: string, ranMs: number, ok: boolean): void;
}

interface Job {
  request: TaskRequest;
  priority: Priority;
  queuedAt: number;
  startedAt?: number;
  transfer: TransferListItem[];
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

interface Slot { worker: Worker; job: Job | null }

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
  observer: PoolObserver | undefined;

  constructor(readonly size: number = Math.max(1, os.availableParallelism())) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  run<T = unknown>(task: string, payload: unknown, options: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('inference pool is closed'));
    if (!TASKS[task]) return Promise.reject(new Error(`unknown inference task ${task}`));
    return new Promise<T>((resolve, reject) => {
      const priority = options.priority ?? 'interactive';
      const job: Job = { request: { id: this.nextId++, task, payload }, priority, queuedAt: performance.now(), transfer: options.transfer ?? [], resolve: resolve as (v: unknown) => void, reject };
      this.queues[priority].push(job);
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
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(bootstrap, { workerData: { entry } });
    const slot: Slot = { worker, job: null };
    worker.on('message', (response: TaskResponse) => {
      const job = slot.job;
      slot.job = null;
      worker.unref();
      if (job && job.request.id === response.id) {
        this.observer?.finished(job.request.task, performance.now() - (job.startedAt ?? job.queuedAt), response.ok);
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
    slot.job?.reject(err);
    slot.job = null;
    void slot.worker.terminate();
    this.slots[index] = this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queues.interactive.shift() ?? this.queues.background.shift();
      if (!job) return;
      slot.job = job;
      job.startedAt = performance.now();
      this.observer?.started(job.request.task, job.priority, job.startedAt - job.queuedAt);
      slot.worker.ref();
      slot.worker.postMessage(job.request, job.transfer);
    }
  }
}
