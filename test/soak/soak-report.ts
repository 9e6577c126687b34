/**
 * The soak's verdict and tables: each sampled series (start, end, min, max, and its least-squares slope per
 * hour over the samples after warm-up, against a bound), the answers by action and status class with every
 * failure that is not a documented refusal, and the ordinary call's latency under the soak against idle.
 */
import { percentile, printTable } from '../../scripts/table.js';
import type { Outcome } from './soak-traffic.js';
import type { Sample } from './soak-sampler.js';

export interface TimedSample {
  /** Seconds since the traffic started. */
  t: number;
  values: Sample;
}

/**
 * Largest slope per hour after warm-up, by series kind. Each would take a day or more to exhaust this kind of
 * machine (memory of GBs, 1024 descriptors per process, a disk of tens of GB), so a real leak shows above it.
 */
export const SLOPE_BOUNDS: { prefix: string; perHour: number; unit: string }[] = [
  { prefix: 'RSS MB', perHour: 100, unit: 'MB' },
  { prefix: 'open fds', perHour: 40, unit: 'fds' },
  { prefix: 'temp MB', perHour: 50, unit: 'MB' },
  { prefix: 'edge D1 MB', perHour: 50, unit: 'MB' },
  { prefix: 'pg connections', perHour: 10, unit: 'connections' },
  { prefix: 'database MB', perHour: 100, unit: 'MB' },
  { prefix: 'table MB', perHour: 50, unit: 'MB' },
  { prefix: 'table rows', perHour: 5000, unit: 'rows' },
];
/** The ordinary call's p99 under the soak, at most this many times its p99 when idle. */
export const LATENCY_FACTOR = 2;
/** Table series printed beyond those over their bound: the largest growers. */
const TABLE_ROWS_SHOWN = 6;

/** Least-squares slope of (t seconds, y), per hour. */
export function slopePerHour(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((s, [t]) => s + t, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [t, y]) => s + (t - mt) * (y - my), 0);
  const den = points.reduce((s, [t]) => s + (t - mt) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 3600;
}

interface SeriesVerdict {
  name: string;
  start: number;
  end: number;
  min: number;
  max: number;
  slope: number;
  bound: number;
  pass: boolean;
}

export function seriesVerdicts(samples: TimedSample[], warmUpSeconds: number): SeriesVerdict[] {
  const names = [...new Set(samples.flatMap((s) => [...s.values.keys()]))].sort();
  return names.map((name) => {
    const points = samples.filter((s) => s.values.has(name)).map((s): [number, number] => [s.t, s.values.get(name)!]);
    const values = points.map(([, y]) => y);
    const bound = SLOPE_BOUNDS.find((b) => name.startsWith(b.prefix))?.perHour ?? Infinity;
    const slope = slopePerHour(points.filter(([t]) => t >= warmUpSeconds));
    return { name, start: values[0]!, end: values.at(-1)!, min: Math.min(...values), max: Math.max(...values), slope, bound, pass: slope <= bound };
  });
}

/**
 * The 5xx answers the contract documents as refusals: 503/9006 (the account's share of a backend is full,
 * retry later) and the specification's 500/4001 (the image behind a URL could not be downloaded).
 */
export const DOCUMENTED_5XX = [
  [503, 9006],
  [500, 4001],
] as const;

export function isDocumentedRefusal(o: Outcome): boolean {
  return DOCUMENTED_5XX.some(([status, code]) => o.result.status === status && o.result.code === code);
}

/** No answer is expected only where the caller drops the connection, or where a refusal may cut the upload short. */
function noAnswerExpected(o: Outcome): boolean {
  if (o.action === 'aborted upload') return true;
  return o.action === 'refused: oversized' && /EPIPE|ECONNRESET|socket hang up/.test(o.result.error ?? '');
}

export function unexpectedFailures(outcomes: Outcome[]): Outcome[] {
  return outcomes.filter((o) => (o.result.status >= 500 && !isDocumentedRefusal(o)) || (o.result.status === 0 && !noAnswerExpected(o)));
}

/** Answers grouped by action, status and code, with the first answer of each group as its example. */
function printGroups(title: string, outcomes: Outcome[]): void {
  const groups = new Map<string, { example: string; count: number }>();
  for (const o of outcomes) {
    const key = `${o.action}\t${o.result.status || 'no answer'}${o.result.code ? `/${o.result.code}` : ''}`;
    const example = (o.result.error ?? o.result.body).replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 120);
    const group = groups.get(key) ?? { example, count: 0 };
    group.count++;
    groups.set(key, group);
  }
  console.log(`${title}:\n`);
  printTable(['action', 'status', 'count', 'first answer'], [...groups].map(([key, g]) => [...key.split('\t'), g.count, g.example]));
}

/** The actions whose calls are meant to be refused or cut off. */
const REFUSALS_SENT = /^(refused|random key|aborted)/;

const statusClass = (status: number) => (status === 0 ? 'no answer' : `${Math.floor(status / 100)}xx`);
const CLASSES = ['2xx', '3xx', '4xx', '5xx', 'no answer'];
const round = (n: number) => Math.round(n * 10) / 10;

/** The ordinary call's answers, idle and under the soak: each call's total and `Server-Timing`. */
export interface Latency {
  idle: TimedCall[];
  soak: TimedCall[];
}

export interface TimedCall {
  ms: number;
  serverTiming?: string;
}

/** `name;dur=1.5, other;dur=2` → stage → ms (entries without a duration are left out). */
export function parseServerTiming(header: string | undefined): Map<string, number> {
  const stages = new Map<string, number>();
  for (const entry of (header ?? '').split(',')) {
    const [name, ...params] = entry.split(';').map((p) => p.trim());
    const dur = params.find((p) => p.startsWith('dur='));
    if (name && dur) stages.set(name, Number(dur.slice(4)));
  }
  return stages;
}

/**
 * A call's time by stage: the backend's own stages, `backend` (its whole time), `edge only` (the edge's total
 * less the backend's) and `client ↔ edge` (the caller's wait less the edge's total).
 */
export function callStages(call: TimedCall): Map<string, number> {
  const stages = parseServerTiming(call.serverTiming);
  const edge = stages.get('edge');
  const backend = stages.get('backend');
  stages.delete('edge');
  if (edge !== undefined && backend !== undefined) stages.set('edge only', edge - backend);
  if (edge !== undefined) stages.set('client ↔ edge', call.ms - edge);
  stages.set('total', call.ms);
  return stages;
}

function printStages(stages: Latency): void {
  const idle = stages.idle.map(callStages);
  const soak = stages.soak.map(callStages);
  const names = [...new Set([...idle, ...soak].flatMap((m) => [...m.keys()]))];
  const at = (calls: Map<string, number>[], name: string, p: number) => round(percentile(calls.map((m) => m.get(name) ?? 0), p));
  console.log('Where the ordinary call\'s time went (Server-Timing; a stage a call did not meet counts 0):\n');
  printTable(['stage', 'idle p50 ms', 'idle p99 ms', 'soak p50 ms', 'soak p99 ms'], names.map((n) => [n, at(idle, n, 50), at(idle, n, 99), at(soak, n, 50), at(soak, n, 99)]));
}

export interface Verdict {
  pass: boolean;
  reasons: string[];
}

export function report(samples: TimedSample[], warmUpSeconds: number, outcomes: Outcome[], latency: Latency): Verdict {
  const reasons: string[] = [];
  const verdicts = seriesVerdicts(samples, warmUpSeconds);
  const failing = verdicts.filter((v) => !v.pass);
  for (const v of failing) reasons.push(`${v.name} grew ${round(v.slope)}/h after warm-up (bound ${v.bound}/h)`);

  const isTable = (v: SeriesVerdict) => v.name.startsWith('table ');
  const growers = (prefix: string) =>
    verdicts.filter((v) => v.name.startsWith(prefix) && v.pass && v.end !== v.start).sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, TABLE_ROWS_SHOWN);
  const shown = [...verdicts.filter((v) => !isTable(v)), ...failing.filter(isTable), ...growers('table MB'), ...growers('table rows')];
  console.log(`### Series (slope: least squares over the samples after the first ${Math.round(warmUpSeconds)} s, per hour)\n`);
  printTable(
    ['series', 'start', 'end', 'min', 'max', 'slope /h', 'bound /h', ''],
    shown.map((v) => [v.name, round(v.start), round(v.end), round(v.min), round(v.max), round(v.slope), v.bound, v.pass ? 'ok' : 'FAIL']),
  );
  const hidden = verdicts.filter(isTable).length - shown.filter(isTable).length;
  if (hidden) console.log(`(${hidden} more table series within their bound and not among the largest growers)\n`);
  console.log(`Bounds: ${SLOPE_BOUNDS.map((b) => `${b.prefix} ${b.perHour} ${b.unit}/h`).join(', ')}.\n`);

  console.log('### Answers by action\n');
  const actions = [...new Set(outcomes.map((o) => o.action))].sort();
  printTable(
    ['action', 'calls', ...CLASSES, 'p50 ms'],
    actions.map((action) => {
      const mine = outcomes.filter((o) => o.action === action);
      return [action, mine.length, ...CLASSES.map((c) => mine.filter((o) => statusClass(o.result.status) === c).length), Math.round(percentile(mine.map((o) => o.result.ms), 50))];
    }),
  );
  const documented = outcomes.filter(isDocumentedRefusal);
  const failures = unexpectedFailures(outcomes);
  const retried = outcomes.filter((o) => o.result.staleConnectionRetry).length;
  console.log(`${outcomes.length} answers (${retried} sent twice: the first went out on a kept-alive connection the edge had just closed); ${documented.length} documented 5xx refusals (${DOCUMENTED_5XX.map((d) => d.join('/')).join(', ')}); ${failures.length} unexpected failures (any other 5xx, or no answer where one was due).\n`);
  if (documented.length) printGroups('Documented 5xx refusals', documented);
  const refusedOrdinary = outcomes.filter((o) => o.result.status >= 400 && o.result.status < 500 && !REFUSALS_SENT.test(o.action));
  if (refusedOrdinary.length) printGroups('4xx answers to calls meant to succeed (not part of the verdict)', refusedOrdinary);
  if (failures.length) {
    printGroups('Unexpected failures', failures);
    reasons.push(`${failures.length} answers were failures other than documented refusals`);
  }

  const idle = latency.idle.map((c) => c.ms);
  const soak = latency.soak.map((c) => c.ms);
  const idleP99 = percentile(idle, 99);
  const soakP99 = percentile(soak, 99);
  console.log('### Ordinary call (colour analysis of a 320×240 JPEG, one caller of its own account, sequential; under the soak: after warm-up)\n');
  printTable(
    ['', 'calls', 'p50 ms', 'p99 ms'],
    [
      ['idle', idle.length, round(percentile(idle, 50)), round(idleP99)],
      ['under the soak', soak.length, round(percentile(soak, 50)), round(soakP99)],
    ],
  );
  printStages(latency);
  if (!(soakP99 <= LATENCY_FACTOR * idleP99)) reasons.push(`the ordinary call's p99 under the soak (${round(soakP99)} ms) is over ${LATENCY_FACTOR}× idle (${round(idleP99)} ms)`);
  return { pass: reasons.length === 0, reasons };
}
