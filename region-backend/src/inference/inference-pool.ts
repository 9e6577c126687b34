import os from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';
import { ApiError } from '@iris/shared';
import { currentUsageScope, type UsageScope } from '../util/usage-scope.js';
import { runsBuild } from '../util/backend-build.js';
import { AccountQueues } from './account-queues.js';
import type { BatchItem, StopRequest, TaskRequest, TaskResponse } from './task-protocol.js';
import { BATCHED_TASKS, isTaskName, type TaskName, type TaskPayload, type TaskResult } from './task-registry.js';

export type Priority = 'interactive' | 'background';

export interface RunOptions {
  /** Interactive work (API queries) always goes before background work (indexing, training, batch). */
  priority?: Priority;
  transfer?: TransferListItem[];
  /** The account the work is for: accounts are served round-robin, each within its limits. */
  accountId?: number;
  /** Time limit of this task (default: the pool's limit for its priority). */
  timeoutMs?: number;
  /**
   * A short interactive task (a few milliseconds) that may run on an idle thread beyond its account's thread
   * share while no other account waits: the query's re-ranking features beside its embedding. Another account
   * arriving then waits at most for that one short task.
   */
  mayBorrow?: boolean;
  /** Told the task's wait for a thread (`queue`) and its time on it (`thread`): the call's Server-Timing. */
  timings?: StageTimings;
}

export interface StageTimings {
  add(stage: string, ms: number): void;
}

/** Per-account fairness and time limits (README "Quotas and limits"). */
export interface PoolLimits {
  /** Threads one account's tasks (interactive and background) may hold at once. */
  accountThreads: number;
  /**
   * Extra threads at a lower CPU priority (nice +10) for background work and for the calls of an account
   * that has several at once; the pool's `size` threads then serve only an account's single call. 0: one tier.
   */
  lowPriorityThreads: number;
  /**
   * With two tiers, nice levels the first-tier threads are raised above the process (0: not raised), so the
   * normal-priority work the process does for a flooding account (its requests, image decoding, database
   * calls) yields the cores to another account's single call too. Needs CAP_SYS_NICE or RLIMIT_NICE; without
   * them the threads stay at the process's priority (`tierNice` tells).
   */
  firstTierBoost: number;
  /** Interactive tasks one account may have waiting; past it, calls are refused with 503. */
  accountQueue: number;
  /** Time limits: over it the thread is terminated and replaced, the caller gets 504. */
  interactiveTimeoutMs: number;
  backgroundTimeoutMs: number;
}

/** Niceness of the low-priority threads: under contention they get about a tenth of a core's time each. */
export const LOW_PRIORITY_NICE = 10;
/**
 * Nice levels the first tier is raised by, when allowed: at 10 a first-tier thread gets about nine tenths of a
 * core that a normal-priority thread also wants (5 measured about half of the gain in the fairness bench).
 */
export const FIRST_TIER_BOOST = 10;

/**
 * With a low-priority tier an account may use every thread of it (another account's single call still
 * finds a thread of the first tier); with one tier, half the threads.
 */
export function defaultPoolLimits(size: number, lowPriorityThreads = size): PoolLimits {
  const accountThreads = lowPriorityThreads > 0 ? Math.max(1, lowPriorityThreads) : Math.max(1, Math.ceil(size / 2));
  return { accountThreads, lowPriorityThreads, firstTierBoost: FIRST_TIER_BOOST, accountQueue: 32, interactiveTimeoutMs: 30_000, backgroundTimeoutMs: 600_000 };
}

/**
 * A task that ran past its time limit: its thread was terminated and replaced, nothing else was affected.
 * Answers as the API's task timeout (504) when it reaches a route.
 */
export class InferenceTimeoutError extends ApiError {
  override readonly name = 'InferenceTimeoutError';
  constructor(
    readonly task: string,
    readonly timeoutMs: number,
  ) {
    super('taskTimeout', `${task} did not finish within ${timeoutMs} ms`);
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

/** Told when a task leaves the queue for a thread, and when it is done (metrics). */
export interface PoolObserver {
  started(task: string, priority: Priority, waitedMs: number): void;
  /** `usage`: the account and service the task ran for (the usage scope it was submitted in), if any. */
  finished(task: string, ranMs: number, ok: boolean, usage: UsageScope | undefined): void;
}

interface Job {
  request: TaskRequest;
  queuedAt: number;
  startedAt?: number;
  timings: StageTimings | undefined;
  transfer: TransferListItem[];
  priority: Priority;
  account: string;
  usage: UsageScope | undefined;
  timeoutMs: number;
  mayBorrow: boolean;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * `ready` once the thread has loaded (time limits count from then, not from a fresh thread's start-up);
 * `nice`: its nice value relative to the process, once the thread has set it.
 */
interface Slot { worker: Worker; job: Job | null; timer: NodeJS.Timeout | null; ready: boolean; lowPriority: boolean; nice: number | null }

/** A warmed thread's report: what it loaded, or why warming failed. */
export type WarmReport = { models: number; ms: number } | { error: string };

type WorkerMessage = TaskResponse | { ready: true } | { nice: number } | { warmed: WarmReport };

const fromSources = import.meta.url.endsWith('.ts');

/**
 * The threads' code: this module's own build or sources, except that a process running the sources (the backend's
 * tests under vitest) starts its threads from the build when told the build is current (`runsBuild`, as npm test
 * does after building), so each pool's threads and first models load without the TypeScript loader.
 */
function threadCode(): { entry: string; execArgv: string[] | undefined } {
  if (fromSources && runsBuild()) return { entry: new URL('../../dist/inference/inference-worker.js', import.meta.url).href, execArgv: [...process.execArgv, '--conditions=iris-dist'] };
  return { entry: new URL(`./inference-worker${fromSources ? '.ts' : '.js'}`, import.meta.url).href, execArgv: undefined };
}
const bootstrap = new URL('./worker-bootstrap.mjs', import.meta.url);
/** How long a thread asked to stop may take to finish what it runs before it is terminated. */
export const STOP_GRACE_MS = 10_000;

/**
 * Ends a thread once its running call (or model load) is done, as it is asked (StopRequest); terminates it
 * if it has not ended within `STOP_GRACE_MS` (a task looping in JavaScript). Terminating a thread while ONNX
 * Runtime or libvips works for it can abort the whole process when the native call returns into the
 * stopped thread; and it would not stop that native work anyway.
 */
function stopThread(worker: Worker): Promise<void> {
  if (worker.threadId < 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.ref();
    worker.postMessage({ stop: true } satisfies StopRequest);
  });
}

/** Work that names no account (operator calls, internal jobs) shares one queue. */
const NO_ACCOUNT = '-';

/**
 * For this long after an interactive call, background work leaves one thread free (pools of 2 or more), so
 * the next interactive call does not wait behind a background batch. Without interactive traffic, background
 * work uses every thread.
 */
const INTERACTIVE_RESERVE_MS = 2_000;

/**
 * A fixed pool of worker threads that run model code, so the request event loop never does.
 * Interactive jobs are always taken before background ones; within a priority, accounts take turns; an
 * account's jobs hold at most `accountThreads` threads at once, it queues at most `accountQueue` interactive
 * jobs; every job runs under a time limit. Work that names no account (indexing, training) is not capped.
 *
 * Two tiers (with `lowPriorityThreads`): the `size` first-tier threads take an account's call only while it
 * is that account's only one (nothing else of it running or waiting), so a caller making ordinary calls
 * never waits for a thread; background work and the calls of an account sending many at once run on the
 * low-priority threads, which the kernel's scheduler lets yield the cores to the first tier. Where allowed,
 * the first tier also runs above the process's own priority (`firstTierBoost`), ahead of the normal-priority
 * work done for a flooding account outside the pool. A flood thus costs the other accounts' calls little CPU
 * time, while an account alone still uses every core.
 */
export class InferencePool {
  private readonly slots: Slot[] = [];
  private readonly queues: Record<Priority, AccountQueues<Job>> = { interactive: new AccountQueues(), background: new AccountQueues() };
  private readonly running = new Map<string, number>();
  private readonly limits: PoolLimits;
  private readonly code = threadCode();
  private nextId = 1;
  private closed = false;
  observer: PoolObserver | undefined;
  /** Tasks stopped at their time limit since the pool started. */
  timeouts = 0;
  /** Background jobs that ran inside a batch of several (for benchmarks and tests). */
  batchedJobs = 0;
  private lastInteractive = -Infinity;
  /**
   * Calls each account has in flight in the process (HTTP requests), when known, counted at least 2 while it
   * had several at once within the last second (AccountCalls.concurrency): a task of such an account is not
   * its only call, even if it reaches this pool alone.
   */
  callsInFlight: ((account: string) => number) | undefined;
  private reserveTimer: NodeJS.Timeout | undefined;

  /** Told each warmed thread's report (`warmModels`). */
  onWarmed: ((report: WarmReport) => void) | undefined;
  private readonly warmModels: boolean;

  /**
   * `taskTimeoutMs` sets both time limits at once (0 = none). `warmModels`: each thread (a replaced one too) loads
   * and runs every model before it takes its first job (`warm-models`).
   */
  constructor(readonly size: number = Math.max(1, os.availableParallelism()), limits: Partial<PoolLimits> & { taskTimeoutMs?: number; warmModels?: boolean } = {}) {
    const { taskTimeoutMs, warmModels, ...rest } = limits;
    this.warmModels = warmModels ?? false;
    const timeouts = taskTimeoutMs === undefined ? {} : { interactiveTimeoutMs: taskTimeoutMs, backgroundTimeoutMs: taskTimeoutMs };
    this.limits = { ...defaultPoolLimits(size, rest.lowPriorityThreads), ...timeouts, ...rest };
    for (let i = 0; i < size; i++) this.slots.push(this.spawn(false));
    for (let i = 0; i < this.limits.lowPriorityThreads; i++) this.slots.push(this.spawn(true));
  }

  /** Threads of both tiers. */
  get threads(): number {
    return this.slots.length;
  }

  /** Runs `task` on a worker thread: its payload and result types are the task module's (`TaskMap`). */
  run<K extends TaskName>(task: K, payload: TaskPayload<K>, options: RunOptions = {}): Promise<TaskResult<K>> {
    if (this.closed) return Promise.reject(new Error('inference pool is closed'));
    if (!isTaskName(task)) return Promise.reject(new Error(`unknown inference task ${task}`));
    const priority = options.priority ?? 'interactive';
    const account = options.accountId === undefined ? NO_ACCOUNT : String(options.accountId);
    if (priority === 'interactive' && account !== NO_ACCOUNT && this.queues.interactive.waitingOf(account) >= this.limits.accountQueue) {
      return Promise.reject(new ApiError('busy', 'too many analysis calls of this account at once; retry later'));
    }
    const timeoutMs = options.timeoutMs ?? (priority === 'interactive' ? this.limits.interactiveTimeoutMs : this.limits.backgroundTimeoutMs);
    if (priority === 'interactive') this.lastInteractive = performance.now();
    return new Promise<TaskResult<K>>((resolve, reject) => {
      const job: Job = { request: { id: this.nextId++, task, payload }, transfer: options.transfer ?? [], priority, account, timeoutMs, mayBorrow: priority === 'interactive' && options.mayBorrow === true, usage: currentUsageScope(), queuedAt: performance.now(), timings: options.timings, resolve: resolve as (v: unknown) => void, reject };
      this.queues[priority].push(account, job);
      // A job waiting for threads that are still loading keeps the process alive (a bench or script with
      // nothing else pending would otherwise exit before the first answer).
      for (const slot of this.slots) if (!slot.ready) slot.worker.ref();
      this.dispatch();
    });
  }

  /** A view of the pool whose jobs are all for one account (analysis handlers take a pool, not an account). */
  forAccount(accountId: number, timings?: StageTimings): InferencePool {
    const view = Object.create(this) as InferencePool;
    const run: InferencePool['run'] = (task, payload, options = {}) => this.run(task, payload, { accountId, timings, ...options });
    Object.defineProperty(view, 'run', { value: run });
    return view;
  }

  /** Threads free right now with nothing waiting for them (0 while any job waits). */
  get idleThreads(): number {
    if (this.queues.interactive.size || this.queues.background.size) return 0;
    return this.slots.filter((s) => !s.job && s.ready).length;
  }

  /**
   * Whether interactive work is being served: waiting, running, or submitted within `withinMs` (the gap
   * before a sequential caller's next call). Background work outside the pool (batch downloads) yields then.
   */
  interactiveActive(withinMs: number): boolean {
    if (this.queues.interactive.size || this.slots.some((s) => s.job?.priority === 'interactive')) return true;
    return performance.now() - this.lastInteractive <= withinMs;
  }

  /** Jobs waiting (not yet on a thread), per priority. */
  get waiting(): Record<Priority, number> {
    return { interactive: this.queues.interactive.size, background: this.queues.background.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queues.interactive.drain(), ...this.queues.background.drain()]) job.reject(new Error('inference pool is closed'));
    for (const slot of this.slots) if (slot.timer) clearTimeout(slot.timer);
    await Promise.all(this.slots.map((s) => stopThread(s.worker)));
  }

  /**
   * The nice value of each tier's threads relative to the process (the least favoured thread of the tier;
   * null before any has started): first-tier threads below 0 are raised, low-priority ones at LOW_PRIORITY_NICE.
   */
  tierNice(): { first: number | null; low: number | null } {
    const of = (low: boolean) => {
      const values = this.slots.filter((s) => s.lowPriority === low && s.nice !== null).map((s) => s.nice!);
      return values.length ? Math.max(...values) : null;
    };
    return { first: of(false), low: of(true) };
  }

  private spawn(lowPriority: boolean): Slot {
    const nice = lowPriority ? LOW_PRIORITY_NICE : this.limits.lowPriorityThreads > 0 ? -this.limits.firstTierBoost : 0;
    const worker = new Worker(bootstrap, { workerData: { entry: this.code.entry, nice, warm: this.warmModels }, execArgv: this.code.execArgv });
    const slot: Slot = { worker, job: null, timer: null, ready: false, lowPriority, nice: null };
    worker.on('message', (response: WorkerMessage) => {
      if ('nice' in response) {
        slot.nice = response.nice;
        return;
      }
      if ('warmed' in response) {
        this.onWarmed?.(response.warmed);
        return;
      }
      if ('ready' in response) {
        slot.ready = true;
        this.dispatch();
        if (!slot.job) worker.unref();
        return;
      }
      const job = this.finish(slot);
      worker.unref();
      if (job && job.request.id === response.id) {
        const ranMs = performance.now() - (job.startedAt ?? job.queuedAt);
        this.observer?.finished(job.request.task, ranMs, response.ok, job.usage);
        job.timings?.add('thread', ranMs);
        if (response.ok) job.resolve(response.result);
        else job.reject(new InferenceTaskError(response.error.message, response.error.name, response.error.code));
      }
      this.dispatch();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', (code) => {
      if (!this.closed && code !== 0) this.replace(slot, new Error(`inference worker exited with code ${code}`));
    });
    // Idle threads must not keep the process alive; a thread with a job does (see dispatch), and so does a
    // loading thread while jobs wait (see run).
    if (!this.queues.interactive.size && !this.queues.background.size) worker.unref();
    return slot;
  }

  /** Takes the job off a slot (its timer and its account's running count). */
  private finish(slot: Slot): Job | null {
    const job = slot.job;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (job && job.account !== NO_ACCOUNT) {
      const left = (this.running.get(job.account) ?? 1) - 1;
      if (left > 0) this.running.set(job.account, left);
      else this.running.delete(job.account);
    }
    return job;
  }

  /** A crashed or timed-out thread fails only its own job; a fresh thread takes its place. */
  private replace(slot: Slot, err: unknown): void {
    if (this.closed) return;
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.finish(slot)?.reject(err);
    void stopThread(slot.worker);
    this.slots[index] = this.spawn(slot.lowPriority);
    this.dispatch();
  }

  private mayRun = (account: string): boolean => account === NO_ACCOUNT || (this.running.get(account) ?? 0) < this.limits.accountThreads;

  /**
   * The next background job; for a batched task, that account's queued background jobs of the same task (up
   * to the task's batch size) gathered into one job, which the worker runs as one model batch.
   */
  private nextBackground(): Job | undefined {
    const head = this.queues.background.shift(this.mayRun);
    const max = head ? BATCHED_TASKS[head.request.task as TaskName] : undefined;
    if (!head || !max) return head;
    const more = this.queues.background.takeMatching(head.account, max - 1, (j) => j.request.task === head.request.task);
    if (!more.length) return head;
    this.batchedJobs += more.length + 1;
    return batchJob([head, ...more]);
  }

  /**
   * A short interactive job over its account's share, on a thread that would otherwise idle: only when every
   * waiting interactive job is of accounts at their share (none is held back by this) and its lane's next job
   * may borrow.
   */
  private borrowing(): Job | undefined {
    return this.queues.interactive.shift(() => true, (job) => job.mayBorrow);
  }

  /**
   * An account's only call (first-tier work): nothing else of its account is running or waiting here, and
   * the account has no other call in flight in the process.
   */
  private isSingleCall = (job: Job): boolean =>
    (this.running.get(job.account) ?? 0) === 0 && this.queues.interactive.waitingOf(job.account) === 1 && (this.callsInFlight?.(job.account) ?? 0) <= 1;

  /** The next job for a free thread, by its tier. */
  private nextFor(slot: Slot): Job | undefined {
    const interactive = this.queues.interactive;
    if (!this.limits.lowPriorityThreads) return interactive.shift(this.mayRun) ?? this.borrowing() ?? (this.reserveForInteractive() ? undefined : this.nextBackground());
    if (!slot.lowPriority) return interactive.shift(this.mayRun, this.isSingleCall) ?? this.borrowing();
    return interactive.shift(this.mayRun) ?? this.nextBackground();
  }

  /** One tier only: for a while after an interactive call, background work leaves one thread free. */
  private reserveForInteractive(): boolean {
    if (this.slots.length < 2 || performance.now() - this.lastInteractive > INTERACTIVE_RESERVE_MS) return false;
    const busyBackground = this.slots.filter((s) => s.job?.priority === 'background').length;
    if (busyBackground < this.slots.length - 1) return false;
    // Hand the reserved thread back to background work when the window ends, even if nothing else happens.
    this.reserveTimer ??= setTimeout(() => {
      this.reserveTimer = undefined;
      if (!this.closed) this.dispatch();
    }, INTERACTIVE_RESERVE_MS).unref();
    return true;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || !slot.ready) continue;
      const job = this.nextFor(slot);
      if (!job) continue;
      slot.job = job;
      job.startedAt = performance.now();
      this.observer?.started(job.request.task, job.priority, job.startedAt - job.queuedAt);
      job.timings?.add('queue', job.startedAt - job.queuedAt);
      if (job.account !== NO_ACCOUNT) this.running.set(job.account, (this.running.get(job.account) ?? 0) + 1);
      if (job.timeoutMs > 0) {
        slot.timer = setTimeout(() => {
          if (slot.job !== job) return;
          this.timeouts++;
          this.replace(slot, new InferenceTimeoutError(job.request.task, job.timeoutMs));
        }, job.timeoutMs);
        slot.timer.unref();
      }
      slot.worker.ref();
      slot.worker.postMessage(job.request, job.transfer);
    }
  }
}

/** One job standing for several jobs of a batched task: the worker answers one result (or error) per job. */
function batchJob(jobs: Job[]): Job {
  const head = jobs[0]!;
  return {
    ...head,
    request: { id: head.request.id, task: head.request.task, payload: null, batch: jobs.map((j) => j.request.payload) },
    transfer: jobs.flatMap((j) => j.transfer),
    timeoutMs: head.timeoutMs > 0 ? head.timeoutMs * jobs.length : 0,
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
