/**
 * Processes as /proc shows them (Linux): who started whom, what each is called and what it holds. Used by the
 * soak's sampler and the edge benches to find the workerd processes under an edge and read their memory.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Parent pid of every process, from /proc/<pid>/stat (the field after the parenthesised name). */
export function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  return map;
}

/** Every process under `root`, in pid order. */
export function descendants(root: number, parentOf: Map<number, number> = parents()): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    for (const [child, parent] of parentOf) {
      if (parent !== pid) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found.sort((a, b) => a - b);
}

/** The process's command name; '' once it has ended. */
export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Resident memory in MB (VmRSS). */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}
