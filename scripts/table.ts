/** Tables and measurements shared by the eval and bench suites. */

/** Prints a Markdown table (so the README can carry a suite's output as is). */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)));
  console.log(`| ${headers.join(' | ')} |`);
  console.log(`|${headers.map(() => '---').join('|')}|`);
  for (const row of cells) console.log(`| ${row.join(' | ')} |`);
  console.log('');
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(1) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3);
}

/** Median and a percentile of a sample, for latency tables. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: number[]): number => percentile(values, 50);

/** Median milliseconds of `runs` sequential calls of `fn`, after 2 untimed warm-up calls. */
export async function timeIt(runs: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Runs `work` `total` times with `inFlight` calls always outstanding (closed loop); answers calls per second. */
export async function closedLoopRate(total: number, inFlight: number, work: (index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await work(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
