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
}

function statOf(pid: number): ProcStat | null {
  try {
    // Fields after the command name (which may hold spaces): state ppid … utime(14) stime(15), 1-based overall.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return null; // gone, or no /proc
  }
}

/** CPU seconds (user + system) used so far by `root` and every process below it. */
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
  for (const [pid, stat] of stats) if (inTree(pid)) seconds += stat.seconds;
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
  const niceOf = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
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
    const fieldsOf = (tid: string) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
    };
    const mainNice = Number(fieldsOf(String(pid)).fields[16]);
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let thread: ReturnType<typeof fieldsOf>;
      try {
        thread = fieldsOf(tid);
      } catch {
        continue; // ended meanwhile
      }
      const group: ThreadGroup =
        tid === String(pid) ? 'main thread'
        : thread.name.startsWith('libvips') ? 'libvips workers'
        : Number(thread.fields[16]) > mainNice ? 'low-priority threads (background inference and decodes)'
        : 'other threads (first tier, libuv: files, sharp)';
      out[group] = (out[group] ?? 0) + (Number(thread.fields[11]) + Number(thread.fields[12])) / TICKS_PER_SECOND;
    }
  } catch {
    // no /proc
  }
  return out;
}
