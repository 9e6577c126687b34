/**
 * Downloads the pending records of data sets in the background: durable pg-boss jobs (one per set and
 * turn), records claimed with leases, bounded concurrency per process, retries with back-off for transient
 * failures, a per-account URL → blob cache, and recovery after a crash (expired leases are claimed again).
 */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { DEFAULT_QUOTAS } from '@iris/shared';
import type { StoredBlob } from '../data-sets/record.repo.js';
import { retryDelaySeconds, type DownloadConfig } from './download-config.js';
import {
  claimRecords,
  completeRecords,
  failRecord,
  cachedBlobAndBudget,
  nextWorkAt,
  releaseClaims,
  renewLeases,
  retryRecordLater,
  setAccount,
  setsWithUnfinishedWork,
  storedBytesBudget,
  type ClaimedRecord,
  type Completion,
} from './download.repo.js';
import { GroupCommit } from '../../util/group-commit.js';
import type { RecentPixels } from '../../images/recent-pixels.js';
import { classifyFailure, StoredBytesExceeded, type DownloadOptions, type ImageDownloader } from './image-download.js';
import { KeyedSemaphore, Semaphore, YieldGate } from './semaphore.js';

export const DOWNLOAD_JOB = 'data-sets.download';

export interface DownloadJobData {
  setId: string;
}

interface JobSender {
  send(name: string, data: object, options?: { startAfter?: Date; singletonKey?: string; singletonSeconds?: number; singletonNextSlot?: boolean }): Promise<string | null>;
}

export interface DownloadServiceDeps {
  pool: pg.Pool;
  queue: JobSender;
  log: FastifyBaseLogger;
  download: ImageDownloader;
  /** Downloads at once in this process, across all sets. */
  concurrency: number;
  config: DownloadConfig;
  /** Told the outcome of every download attempt (metrics). */
  observe?: (outcome: 'ok' | 'failed' | 'retry', err?: unknown) => void;
  /** How long one job works before handing the rest of the set to a new job (keeps jobs short). */
  jobBudgetMs?: number;
  /**
   * Whether an account other than this one is being served (http/account-calls.hook.ts): the account's
   * downloads then run one at a time, so background work leaves the cores to the other account's calls.
   */
  othersActive?: (account: string) => boolean;
  /** Told each picture newly stored for an account (usage counters). */
  stored?: (accountId: number, bytes: number) => void;
  /**
   * The table that keeps the pixels of pictures just stored for their first embedding (the downloader puts
   * them), and whether a set's pictures are embedded (a search service indexes the set). A set that is puts its
   * pictures as wanted and waits for room in the table while first passes take from it: its downloads then go
   * at the pace of the embedding, and no first pass decodes the stored copy again because the table was full.
   */
  recentPixels?: RecentPixels;
  setIsIndexed?: (setId: string) => Promise<boolean>;
}

/** The longest one download waits for room in the pixel table before it goes on without keeping its pixels. */
const PIXELS_ROOM_WAIT_MS = 10_000;

export class DownloadService {
  private readonly slots: Semaphore;
  /** Each account's share of the slots, so one account's sets cannot hold all of them. */
  private readonly accountSlots: KeyedSemaphore;
  /** Records a claim takes at once: an account's share of the slots (its downloads start, and finish, together). */
  private readonly wave: number;
  private readonly inFlight = new Set<number>();
  /** While another account is being served, an account's downloads run one at a time, paced. */
  private readonly yieldGate: YieldGate;
  private readonly heartbeat: NodeJS.Timeout;
  /** Downloads of a set finishing together are recorded in one transaction. */
  private readonly completions: GroupCommit<string, Completion>;
  private closed = false;
  /** Ends the waits for room in the pixel table when the service closes. */
  private readonly closing = new AbortController();

  constructor(private readonly deps: DownloadServiceDeps) {
    this.slots = new Semaphore(deps.concurrency);
    this.wave = deps.config.accountConcurrency ?? Math.max(1, Math.floor(deps.concurrency / 2));
    this.accountSlots = new KeyedSemaphore(this.wave);
    this.yieldGate = new YieldGate((account) => deps.othersActive?.(account) ?? false, deps.config.yieldingPerSecond);
    this.heartbeat = setInterval(() => void this.renew(), (deps.config.leaseSeconds * 1000) / 3);
    this.heartbeat.unref();
    this.completions = new GroupCommit((setId, items) => completeRecords(deps.pool, setId, items));
  }

  /** Schedules a download turn for a set (now, or when its next record is due). */
  async enqueue(setId: string, startAfter?: Date): Promise<void> {
    const data: DownloadJobData = { setId };
    if (startAfter && startAfter.getTime() > Date.now()) {
      // Debounced: follow-ups of one set sent within the same two-second slot collapse into one job; when
      // that slot's job exists already (even finished), the send moves to the next slot instead of vanishing.
      await this.deps.queue.send(DOWNLOAD_JOB, data, { startAfter, singletonKey: `later:${setId}`, singletonSeconds: 2, singletonNextSlot: true });
    } else {
      await this.deps.queue.send(DOWNLOAD_JOB, data);
    }
  }

  /** Boot-time recovery: every set with pending or interrupted records gets a turn. */
  async recover(): Promise<number> {
    const sets = await setsWithUnfinishedWork(this.deps.pool);
    for (const set of sets) await this.enqueue(set.set_id, set.due_at);
    return sets.length;
  }

  /**
   * One download turn for a set (the job handler): claims and downloads due records until none is left or
   * the budget is spent, then schedules the next turn if anything is unfinished (retries, others' leases).
   */
  async processSet(setId: string): Promise<{ processed: number }> {
    const deadline = Date.now() + (this.deps.jobBudgetMs ?? 5 * 60_000);
    let processed = 0;
    const account = await setAccount(this.deps.pool, setId);
    if (account === null) return { processed };
    const pacedBy = this.deps.recentPixels && (await this.deps.setIsIndexed?.(setId)) ? this.deps.recentPixels : undefined;
    // One claim takes a wave of records (leased, renewed while they wait); the workers take from it.
    const waiting: ClaimedRecord[] = [];
    let claiming: Promise<void> | null = null;
    let drained = false;
    const nextRecord = async (): Promise<ClaimedRecord | undefined> => {
      while (!waiting.length && !drained) {
        claiming ??= claimRecords(this.deps.pool, setId, this.wave, this.deps.config.leaseSeconds)
          .then((rows) => {
            for (const row of rows) this.inFlight.add(row.id);
            waiting.push(...rows);
            if (!rows.length) drained = true;
          })
          .finally(() => (claiming = null));
        await claiming;
      }
      return waiting.shift();
    };
    const worker = async () => {
      while (!this.closed && Date.now() < deadline) {
        // The account's share first, so waiting for it holds none of the slots other accounts use.
        const releaseAccount = await this.accountSlots.acquire(account);
        // The account's share waits, not the process's slots: other accounts' downloads go on.
        const releaseRoom = await pacedBy?.reserveRoom(PIXELS_ROOM_WAIT_MS, this.closing.signal);
        const releaseTurn = await this.yieldGate.enter(account, () => this.closed);
        const releaseSlot = await this.slots.acquire();
        const release = () => {
          releaseSlot();
          releaseTurn();
          releaseRoom?.();
          releaseAccount();
        };
        try {
          if (this.closed) return;
          const record = await nextRecord();
          if (!record) return;
          try {
            await this.downloadRecord(setId, record, pacedBy && ((blobKey, pixels) => void pacedBy.put(blobKey, pixels, true)));
            processed++;
          } finally {
            this.inFlight.delete(record.id);
          }
        } finally {
          release();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: this.deps.concurrency }, worker));
    } finally {
      // Claimed and not started (the turn ended): back to pending, the attempt not counted.
      const unstarted = waiting.splice(0).map((r) => r.id);
      if (unstarted.length) await releaseClaims(this.deps.pool, unstarted);
      for (const id of unstarted) this.inFlight.delete(id);
    }
    if (this.closed) return { processed };
    const next = await nextWorkAt(this.deps.pool, setId);
    if (next) await this.enqueue(setId, new Date(Math.max(next.getTime(), Date.now() + 1000)));
    return { processed };
  }

  /**
   * Downloads one URL for an account now (add one image, or a queued record), unless the account's URL cache
   * has it. A new image is stored only while the account's stored images are under its stored-bytes quota,
   * checked before fetching and again before storing (StoredBytesExceeded; as for adds, the image that
   * reaches the quota is kept, so concurrent downloads overshoot by at most one image each). The
   * caller records the result with the cache entry in one transaction (completeRecords, upsertDownloadedRecord).
   * `keepPixels`, when given, is told the picture's pixels instead of the downloader's own table.
   */
  async downloadNow(accountId: number, url: string, keepPixels?: DownloadOptions['pixels']): Promise<StoredBlob> {
    const { cached, limit, used } = await cachedBlobAndBudget(this.deps.pool, accountId, url, DEFAULT_QUOTAS.storedBytes);
    if (cached) return cached;
    if (used >= limit) throw new StoredBytesExceeded(limit);
    const blob = await this.deps.download(url, { admit: () => this.admit(accountId), ...(keepPixels ? { pixels: keepPixels } : {}) });
    this.deps.stored?.(accountId, blob.bytes ?? 0);
    return blob;
  }

  /** Refuses storing more once the account's stored images reach its stored-bytes quota. */
  private async admit(accountId: number): Promise<void> {
    const { limit, used } = await storedBytesBudget(this.deps.pool, accountId, DEFAULT_QUOTAS.storedBytes);
    if (used >= limit) throw new StoredBytesExceeded(limit);
  }

  /** Stops claiming new records; records in flight finish (or their leases expire). */
  close(): void {
    this.closed = true;
    this.closing.abort();
    clearInterval(this.heartbeat);
  }

  private async downloadRecord(setId: string, record: ClaimedRecord, keepPixels?: DownloadOptions['pixels']): Promise<void> {
    const { pool, config, log } = this.deps;
    if (record.attempts > config.maxAttempts) {
      // Claimed again after its leases expired: earlier attempts died with their process (or hung it).
      log.error({ url: record.url, attempts: record.attempts }, 'download keeps stopping its process: record failed');
      await failRecord(pool, setId, record.id, `the download was interrupted ${record.attempts - 1} times (a crash or a stuck worker); not tried again`);
      return;
    }
    try {
      const blob = await this.downloadNow(record.account_id, record.url, keepPixels);
      await this.completions.submit(setId, { record, blob });
      this.deps.observe?.('ok');
    } catch (err) {
      const failure = classifyFailure(err);
      if (failure.permanent || record.attempts >= config.maxAttempts) {
        this.deps.observe?.('failed', failure);
        await failRecord(pool, setId, record.id, failure.message);
      } else {
        this.deps.observe?.('retry', failure);
        const delay = retryDelaySeconds(config, record.attempts);
        log.debug({ url: record.url, attempt: record.attempts, delay, reason: failure.message }, 'download will be retried');
        await retryRecordLater(pool, record.id, failure.message, delay);
      }
    }
  }

  private async renew(): Promise<void> {
    if (!this.inFlight.size) return;
    try {
      await renewLeases(this.deps.pool, [...this.inFlight], this.deps.config.leaseSeconds);
    } catch (err) {
      this.deps.log.warn({ err }, 'renewing download leases failed');
    }
  }
}
