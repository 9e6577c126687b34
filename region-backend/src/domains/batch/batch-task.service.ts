/** The rules of batch tasks: prepare, apply (daily limit, one running task per service), revoke, info, list. */
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { ApiError, DEFAULT_QUOTAS, isApiError, parseTimeOrDate, type Lang, type PrepareTaskInput, type Quotas } from '@iris/shared';
import { inTransaction } from '../../db/transaction.js';
import { ImageDecodeError } from '../../images/image-errors.js';
import type { BatchConfig } from './batch-config.js';
import { rateFunction } from './batch-estimates.js';
import { readRates } from './batch-rate.repo.js';
import { INPUT_FILE, signedLink } from './batch-links.js';
import type { BatchServices } from './batch-services.js';
import {
  accountBatchUsage,
  activeTaskFor,
  countAppliedToday,
  findTask,
  insertTask,
  listTasks,
  lockAccountApplies,
  lockAccountPrepares,
  markPending,
  revokeTask,
  taskQueue,
  type BatchTaskRow,
} from './batch-task.repo.js';
import { deleteItems } from './batch-item.repo.js';
import { parseBatchUrls } from './batch-urls.js';
import type { ViewContext } from './batch-view.js';

export interface Caller {
  accountId: number;
  lang: Lang;
  quotas: Quotas | undefined;
}

export interface BatchTaskServiceDeps {
  pool: pg.Pool;
  services: BatchServices;
  config: BatchConfig;
  /** `<shared dir>/batch`: one folder per task holding its input and result files. */
  filesDir: string;
  secret: string;
  publicEdgeUrl: string;
  /** Queues the task's first worker turn. */
  enqueue(taskId: string): Promise<void>;
}

const NOT_PARAMS = new Set(['service_id', 'urls']);
const MAX_PARAMS = 32;
const MAX_PARAM_CHARS = 2048;
/**
 * The batch family's code for an account's limit (the specification's 400009, "the account's daily batch task
 * limit exceeded"): also answers a prepare past the account's open tasks or kept batch bytes.
 */
export const BATCH_LIMIT = [400, 400009] as const;

/** Links expire on the hour, so repeated info calls within an hour hand out the same links. */
const LINK_ROUNDING_MS = 3_600_000;

export class BatchTaskService {
  constructor(private readonly deps: BatchTaskServiceDeps) {}

  taskDir(taskId: string): string {
    return path.join(this.deps.filesDir, taskId);
  }

  /** `input`: the prepare body as the contract parsed it (service_id, the urls file, the service's own parameters). */
  async prepare(caller: Caller, taskId: string, input: PrepareTaskInput): Promise<BatchTaskRow> {
    const serviceId = input.service_id.trim();
    if (!serviceId) throw new ApiError('batchServiceIdMissing', 'service_id is required');
    const resolved = await this.deps.services.resolve(caller.accountId, serviceId);
    if (!resolved.ok) throw resolved.error;
    const texts = Object.fromEntries(Object.entries(input).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    const params = this.serviceParams(texts, resolved.service.defaults);
    try {
      resolved.service.validate(params);
    } catch (err) {
      if (isApiError(err) || err instanceof ImageDecodeError) throw new ApiError('badRequest', `invalid parameter for ${serviceId}: ${err.message}`);
      throw err;
    }
    const upload = input.urls;
    const size = typeof upload === 'string' ? Buffer.byteLength(upload) : upload.size;
    // Checked before the file is read and stored, and again under the account's lock when the task is recorded.
    this.checkLimits(await accountBatchUsage(this.deps.pool, caller.accountId), size);
    // A list spilled to a temp file is read as it is scanned and copied as a file, never held whole in memory.
    const inMemory = typeof upload === 'string' ? Buffer.from(upload, 'utf8') : upload.data;
    const spilled = typeof upload === 'string' ? null : upload.path;
    const lines = await parseBatchUrls(inMemory ?? createReadStream(spilled!, { highWaterMark: 256 * 1024 }), this.deps.config.maxUrls);

    const dir = this.taskDir(taskId);
    await mkdir(dir, { recursive: true });
    if (inMemory) await writeFile(path.join(dir, INPUT_FILE), inMemory);
    else await copyFile(spilled!, path.join(dir, INPUT_FILE));
    try {
      return await inTransaction(this.deps.pool, async (client) => {
        await lockAccountPrepares(client, caller.accountId);
        this.checkLimits(await accountBatchUsage(client, caller.accountId), size);
        return insertTask(client, { id: taskId, accountId: caller.accountId, serviceId, params, lang: caller.lang, inputBytes: size }, lines);
      });
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** RECEIVED → PENDING, then queued. */
  async apply(caller: Caller, taskId: string | undefined): Promise<BatchTaskRow> {
    if (!taskId) throw new ApiError('batchTaskUnknown', 'task_id is required');
    const limit = caller.quotas?.dailyBatchTasks ?? DEFAULT_QUOTAS.dailyBatchTasks;
    const row = await inTransaction(this.deps.pool, async (client) => {
      await lockAccountApplies(client, caller.accountId);
      const task = await findTask(client, caller.accountId, taskId);
      if (!task) throw new ApiError('batchTaskUnknown', `task ${taskId} does not exist`);
      if (task.state === 'PENDING' || task.state === 'STARTED') throw new ApiError('batchAlreadyRunning', `task ${taskId} has been applied already and is ${task.state}`);
      // A finished task is no task to apply: the specification gives apply 400009-400011 only (400012 is revoke's).
      if (task.state !== 'RECEIVED') throw new ApiError('batchTaskUnknown', `task ${taskId} is ${task.state}; only a RECEIVED task can be applied`);
      const applied = await countAppliedToday(client, caller.accountId);
      if (applied >= limit) throw new ApiError('batchDailyLimit', `the account's limit of ${limit} batch tasks per day (UTC) is reached`);
      const active = await activeTaskFor(client, caller.accountId, task.service_id);
      if (active) throw new ApiError('batchAlreadyRunning', `task ${active.id} for service ${task.service_id} is ${active.state}; one task per service runs at a time`);
      const pending = await markPending(client, taskId);
      if (!pending) throw new ApiError('batchTaskUnknown', `task ${taskId} expired before it was applied`);
      return pending;
    });
    // Should the process die before this, boot-time recovery queues every PENDING task again.
    await this.deps.enqueue(taskId);
    return row;
  }

  /** PENDING → REVOKED; 400012 in any other state. */
  async revoke(caller: Caller, taskId: string): Promise<void> {
    const revoked = await revokeTask(this.deps.pool, caller.accountId, taskId);
    if (revoked) {
      await deleteItems(this.deps.pool, taskId);
      return;
    }
    const task = await this.get(caller, taskId);
    throw new ApiError('batchNotPending', `task ${taskId} is ${task.state}; only a PENDING task can be revoked`);
  }

  async get(caller: Caller, taskId: string): Promise<BatchTaskRow> {
    const task = await findTask(this.deps.pool, caller.accountId, taskId);
    if (!task) throw new ApiError('batchTaskUnknown', `task ${taskId} does not exist`);
    return task;
  }

  /** Tasks received in [start, end); both bounds optional, in %Y-%m-%dT%H:%M:%SZ or a date alone (its midnight UTC). */
  async list(caller: Caller, fields: Record<string, string>): Promise<BatchTaskRow[]> {
    const bound = (name: 'start' | 'end'): Date | null => {
      const text = fields[name]?.trim();
      if (!text) return null;
      const time = parseTimeOrDate(text);
      if (!time) throw new ApiError('badRequest', `${name} must be a UTC time in the format %Y-%m-%dT%H:%M:%SZ (e.g. 2024-05-01T00:00:00Z) or a date %Y-%m-%d (got "${fields[name]}")`);
      return time;
    };
    return listTasks(this.deps.pool, caller.accountId, bound('start'), bound('end'));
  }

  /**
   * Everything the task views need: the queue, the rates and the link signer. Links point at `publicBase`,
   * the region's public address the call came through (signed by the edge), else IRIS_PUBLIC_EDGE_URL.
   */
  async viewContext(publicBase?: string): Promise<ViewContext> {
    const [queue, rates] = await Promise.all([taskQueue(this.deps.pool), readRates(this.deps.pool)]);
    const expiresAt = Math.ceil((Date.now() + this.deps.config.linkSeconds * 1000) / LINK_ROUNDING_MS) * LINK_ROUNDING_MS;
    return {
      queue,
      rateOf: rateFunction(rates, this.deps.config.initialSecondsPerImage),
      link: (task, file) => signedLink(publicBase ?? this.deps.publicEdgeUrl, this.deps.secret, { accountId: task.account_id, taskId: task.id, file }, expiresAt),
    };
  }

  /** 400009 when one more task of `bytes` would pass the account's open tasks or kept bytes. */
  private checkLimits(usage: { open: number; bytes: number }, bytes: number): void {
    const { maxOpenTasks, maxKeptBytes } = this.deps.config;
    if (usage.open >= maxOpenTasks) {
      throw new ApiError(BATCH_LIMIT, `the account has ${usage.open} batch tasks prepared or unfinished; at most ${maxOpenTasks} at once: apply or wait for them first`);
    }
    if (usage.bytes + bytes > maxKeptBytes) {
      const mb = (n: number) => `${Math.ceil(n / 1024 / 1024)} MB`;
      throw new ApiError(BATCH_LIMIT, `the account keeps ${mb(usage.bytes)} of batch files; at most ${mb(maxKeptBytes)}: files of finished tasks are deleted after their retention period`);
    }
  }

  private serviceParams(fields: Record<string, string>, defaults: Record<string, string>): Record<string, string> {
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(fields)) {
      if (NOT_PARAMS.has(name)) continue;
      if (Object.keys(params).length >= MAX_PARAMS || value.length > MAX_PARAM_CHARS) throw new ApiError('badRequest', `too many or too long parameters (at most ${MAX_PARAMS} of ${MAX_PARAM_CHARS} characters)`);
      params[name] = value;
    }
    for (const [name, value] of Object.entries(defaults)) if (!params[name]?.trim()) params[name] = value;
    return params;
  }
}
