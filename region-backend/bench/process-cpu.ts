/**
 * CPU time of process trees, from /proc (Linux): a benchmark reads it before and after a phase to say which
 * process the cores went to. A process's own stat counts all its threads; its children are added by walking
 * the parent links of every process. Elsewhere than Linux it reads nothing (NaN).
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node runs on

interface ProcStat {
  ppid: number;
  seconds: number;
  /** CPU seconds of its children that have exited and been waited for (cutime + cstime). */
  reapedSeconds: number;
}

/**
 * A process's or thread's stat file: its command name, and the fields after it (the name may hold spaces and
 * parentheses): state ppid … utime(11) stime(12) cutime(13) cstime(14) … nice(16), counted from 0 after the name.
 */
function readStat(file: string): { name: string; fields: string[] } {
  const stat = readFileSync(file, 'utf8');
  const end = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
}

/** User + system CPU seconds of a stat file's fields (`from` 13: of its exited children). */
const cpuSecondsOf = (fields: string[], from = 11) => (Number(fields[from]) + Number(fields[from + 1])) / TICKS_PER_SECOND;

function statOf(pid: number): ProcStat | null {
  try {
    const { fields } = readStat(`/proc/${pid}/stat`);
    return { ppid: Number(fields[1]), seconds: cpuSecondsOf(fields), reapedSeconds: cpuSecondsOf(fields, 13) };
  } catch {
    return null; // gone, or no /proc
  }
}

/**
 * CPU seconds (user + system) used so far by `root` and every process below it, those that have exited too
 * (PostgreSQL's connection processes come and go with the client pools' idle timeouts).
 */
export function treeCpuSeconds(root: number): number {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return NaN;
  }
  const stats = new Map<number, ProcStat>();
  for (const pid of pids) {
    const stat = statOf(pid);
    if (stat) stats.set(pid, stat);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = stats.get(p)?.ppid, hops++) if (p === root) return true;
    return false;
  };
  let seconds = 0;
  for (const [pid, stat] of stats) if (inTree(pid)) seconds += stat.seconds + stat.reapedSeconds;
  return seconds;
}

/** CPU seconds used so far by `pid` alone (all its threads, none of its children). */
export function ownCpuSeconds(pid: number): number {
  return statOf(pid)?.seconds ?? NaN;
}

/** A process to meter: its whole tree, or (`alone`) the process without its children. */
export interface Metered {
  pid: number;
  alone?: boolean;
}

/** Reads the processes now; `coresSince()` gives each one's average cores used since then. */
export function cpuMeter(processes: Record<string, Metered>): { coresSince: () => Record<string, number> } {
  const read = () => Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, p.alone ? ownCpuSeconds(p.pid) : treeCpuSeconds(p.pid)]));
  const started = performance.now();
  const before = read();
  return {
    coresSince: () => {
      const seconds = (performance.now() - started) / 1000;
      const now = read();
      return Object.fromEntries(Object.keys(processes).map((name) => [name, (now[name]! - before[name]!) / seconds]));
    },
  };
}

/** The nice value of each of `pid`'s threads relative to its main thread, lowest first (empty elsewhere than Linux). */
export function threadNiceOffsets(pid: number): number[] {
  const niceOf = (tid: string) => Number(readStat(`/proc/${pid}/task/${tid}/stat`).fields[16]);
  try {
    const main = niceOf(String(pid));
    return readdirSync(`/proc/${pid}/task`)
      .map((tid) => niceOf(tid) - main)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/** What a backend's threads are for, as far as /proc tells: its name, and its nice value against the main thread. */
export type ThreadGroup = 'main thread' | 'low-priority threads (background inference and decodes)' | 'libvips workers' | 'other threads (first tier, libuv: files, sharp)';

/** CPU seconds used so far by each group of `pid`'s threads (empty elsewhere than Linux); threads that ended are not counted. */
export function threadGroupCpuSeconds(pid: number): Partial<Record<ThreadGroup, number>> {
  const out: Partial<Record<ThreadGroup, number>> = {};
  try {
    const mainNice = Number(readStat(`/proc/${pid}/stat`).fields[16]);
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let thread: ReturnType<typeof readStat>;
      try {
        thread = readStat(`/proc/${pid}/task/${tid}/stat`);
      } catch {
        continue; // ended meanwhile
      }
      const group: ThreadGroup =
        tid === String(pid) ? 'main thread'
        : thread.name.startsWith('libvips') ? 'libvips workers'
        : Number(thread.fields[16]) > mainNice ? 'low-priority threads (background inference and decodes)'
        : 'other threads (first tier, libuv: files, sharp)';
      out[group] = (out[group] ?? 0) + cpuSecondsOf(thread.fields);
    }
  } catch {
    // no /proc
  }
  return out;
}
