/** Live progress bars (counts, rate, ETA) on stderr, so `--json` output on stdout stays clean. */
import cliProgress from 'cli-progress';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Progress {
  done: number;
  total: number;
  finished: boolean;
  /** Extra text after the bar (state, failures). */
  note?: string;
}

/**
 * Polls `probe` every `intervalMs` and draws a bar until it reports finished; answers the last value.
 * Without a terminal (or with `quiet`) it only polls.
 */
export async function watch<T>(label: string, probe: () => Promise<{ progress: Progress; value: T }>, options: { intervalMs?: number; quiet?: boolean; timeoutMs?: number } = {}): Promise<T> {
  const show = !options.quiet && process.stderr.isTTY;
  const bar = new cliProgress.SingleBar(
    { format: `${label.padEnd(11)} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted} {note}`, hideCursor: true, stream: process.stderr, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let first = true;
  for (;;) {
    const { progress, value } = await probe();
    const rate = ((progress.done / Math.max(1, Date.now() - started)) * 1000).toFixed(1);
    if (show) {
      if (first) bar.start(Math.max(progress.total, 1), progress.done, { rate, note: progress.note ?? '' });
      else {
        bar.setTotal(Math.max(progress.total, 1));
        bar.update(progress.done, { rate, note: progress.note ?? '' });
      }
    }
    first = false;
    if (progress.finished) {
      if (show) bar.stop();
      return value;
    }
    if (options.timeoutMs && Date.now() - started > options.timeoutMs) {
      if (show) bar.stop();
      throw new Error(`${label}: still not finished after ${Math.round(options.timeoutMs / 1000)} s`);
    }
    await sleep(options.intervalMs ?? 1000);
  }
}
