/**
 * The usage counters of this process: added to in memory on the hot path (no database write per call) and
 * written to PostgreSQL in one statement every flush interval and at shutdown. A crash loses at most the
 * counts of one interval (usage figures, never data); a failed write keeps its counts for the next one.
 */
import type { UsageScope } from '../../util/usage-scope.js';
import { addUsage, type UsageRow } from './usage.repo.js';
import type { Queryable } from '../data-sets/set.repo.js';

export type UsageCounts = Partial<Pick<UsageRow, 'calls' | 'picturesAnalysed' | 'picturesStored' | 'bytesStored' | 'inferenceMs' | 'batchLines'>>;

/** The region-wide totals (Prometheus, one series per measure, never per account). */
export type UsageSink = (measure: string, amount: number) => void;

/** A service label as stored: bounded, so a hostile path cannot grow a row's key. */
const MAX_SERVICE_CHARS = 64;

const MEASURES: { key: keyof UsageCounts; measure: string; scale: number }[] = [
  { key: 'calls', measure: 'calls', scale: 1 },
  { key: 'picturesAnalysed', measure: 'pictures_analysed', scale: 1 },
  { key: 'picturesStored', measure: 'pictures_stored', scale: 1 },
  { key: 'bytesStored', measure: 'bytes_stored', scale: 1 },
  { key: 'inferenceMs', measure: 'inference_seconds', scale: 1 / 1000 },
  { key: 'batchLines', measure: 'batch_lines', scale: 1 },
];

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

export class UsageMeter {
  private pending = new Map<string, UsageRow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly sink: UsageSink = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Adds `counts` to the account's row of today and `scope.service`. */
  add(scope: UsageScope, counts: UsageCounts): void {
    const service = scope.service.slice(0, MAX_SERVICE_CHARS);
    const day = utcDay(this.now());
    const key = `${scope.accountId}\u0000${day}\u0000${service}`;
    let row = this.pending.get(key);
    if (!row) {
      row = { accountId: scope.accountId, day, service, calls: 0, picturesAnalysed: 0, picturesStored: 0, bytesStored: 0, inferenceMs: 0, batchLines: 0 };
      this.pending.set(key, row);
    }
    for (const { key: k, measure, scale } of MEASURES) {
      const amount = counts[k];
      if (!amount) continue;
      row[k] += amount;
      this.sink(measure, amount * scale);
    }
  }

  /** Writes what was counted since the last flush; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => {}).then(() => this.write());
    return this.flushing;
  }

  /** Flushes every `intervalMs` (the timer does not keep the process alive). */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.timer = setInterval(() => void this.flush().catch(onError), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes the last counts. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return;
    const taken = this.pending;
    this.pending = new Map();
    try {
      await addUsage(this.db, [...taken.values()]);
    } catch (err) {
      // Kept for the next flush, added to what was counted meanwhile.
      for (const [key, row] of taken) {
        const later = this.pending.get(key);
        if (later) for (const { key: k } of MEASURES) later[k] += row[k];
        else this.pending.set(key, row);
      }
      throw err;
    }
  }
}
