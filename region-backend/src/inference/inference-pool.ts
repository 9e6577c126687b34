import os from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';
import type { BatchItem, TaskRequest, TaskResponse } from './inference-worker.js';
import { BATCHED_TASKS, TASKS } from './task-registry.js';

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

interface Job {
  request: TaskRequest;
  transfer: TransferListItem[];
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

interface Slot { worker: Worker; job: Job | null; background?: boolean }

/**
 * For this long after an interactive call, background work leaves one thread free (pools of 2 or more), so
 * the next interactive call does not wait behind a background batch. Without interactive traffic, background
 * work uses every thread.
 */
const INTERACTIVE_RESERVE_MS = 2_000;

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
  /** Background jobs that ran inside a batch of several (for benchmarks and tests). */
  batchedJobs = 0;
  private lastInteractive = -Infinity;
  private reserveTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(readonly size: number = Math.max(1, os.availableParallelism())) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  run<T = unknown>(task: string, payload: unknown, options: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('inference pool is closed'));
    if (!TASKS[task]) return Promise.reject(new Error(`unknown inference task ${task}`));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { request: { id: this.nextId++, task, payload }, transfer: options.transfer ?? [], resolve: resolve as (v: unknown) => void, reject };
      const priority = options.priority ?? 'interactive';
      if (priority === 'interactive') this.lastInteractive = performance.now();
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

  /**
   * The next background job; for a batched task, the queued background jobs of that task (up to its batch
   * size) gathered into one job, so a worker runs them as one model batch. Interactive work is never batched.
   */
  private nextBackground(): Job | undefined {
    const head = this.queues.background.shift();
    const max = head ? BATCHED_TASKS[head.request.task] : undefined;
    if (!head || !max) return head;
    const jobs = [head];
    for (let i = 0; i < this.queues.background.length && jobs.length < max; ) {
      if (this.queues.background[i]!.request.task === head.request.task) jobs.push(...this.queues.background.splice(i, 1));
      else i++;
    }
    if (jobs.length === 1) return head;
    this.batchedJobs += jobs.length;
    return batchJob(jobs);
  }

  private reserveForInteractive(): boolean {
    if (this.slots.length < 2 || performance.now() - this.lastInteractive > INTERACTIVE_RESERVE_MS) return false;
    const busyBackground = this.slots.filter((s) => s.job && s.background).length;
    if (busyBackground < this.slots.length - 1) return false;
    // Hand the reserved thread back to background work when the window ends, even if nothing else happens.
    this.reserveTimer ??= setTimeout(() => {
      this.reserveTimer = undefined;
      this.dispatch();
    }, INTERACTIVE_RESERVE_MS).unref();
    return true;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      let job = this.queues.interactive.shift();
      slot.background = !job;
      if (!job && !this.reserveForInteractive()) job = this.nextBackground();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request, job.transfer);
    }
  }
}

/** One job standing for several jobs of a batched task: the worker answers one result (or error) per job. */
function batchJob(jobs: Job[]): Job {
  const first = jobs[0]!.request;
  return {
    request: { id: first.id, task: first.task, payload: null, batch: jobs.map((j) => j.request.payload) },
    transfer: jobs.flatMap((j) => j.transfer),
    resolve: (value) => {
      const items = value as BatchItem[];
      jobs.forEach((job, i) => {
        const item = items[i];
        if (item?.ok) job.resolve(item.result);
        else job.reject(item ? new InferenceTaskError(item.error.message, item.error.name, item.error.code) : new Error('batch answered too few results'));
      });
    },
    reject: (reason) => jobs.forEach((job) => job.reject(reason)),
  };
}
