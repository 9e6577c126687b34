/**
 * CPU time each part of the soak used while the traffic ran: the soak itself (load generator, image server and
 * probe thread), each backend, the edge, PostgreSQL. The machine is shared by all of them, so this says who had
 * the cores while the ordinary call waited.
 */
import { readFileSync } from 'node:fs';
import { descendants, parents } from '../../scripts/process-tree.js';
import type { SoakPlatform } from './soak-platform.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Seconds of CPU of a process and of its children it has waited for (utime, stime, cutime, cstime). */
function ownAndReapedSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–17 of the line are the 12th–15th after the name.
    return fields.slice(11, 15).reduce((sum, v) => sum + Number(v), 0) / TICKS_PER_SECOND;
  } catch {
    return 0; // ended meanwhile
  }
}

function liveSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A process with everything under it: its own and reaped children's time, plus its live descendants'. */
function treeSeconds(pid: number, parentOf: Map<number, number>): number {
  return ownAndReapedSeconds(pid) + descendants(pid, parentOf).reduce((sum, child) => sum + liveSeconds(child), 0);
}

export type CpuSnapshot = Map<string, number>;

export function cpuSnapshot(soak: SoakPlatform): CpuSnapshot {
  const parentOf = parents();
  const { edge, backends, postgres } = soak.platform.processes();
  const snapshot: CpuSnapshot = new Map();
  for (const [region, pid] of Object.entries(backends)) if (pid) snapshot.set(`backend ${region}`, treeSeconds(pid, parentOf));
  if (edge) snapshot.set('edge (server and workerd)', treeSeconds(edge, parentOf));
  if (postgres) snapshot.set('PostgreSQL', treeSeconds(postgres, parentOf));
  snapshot.set('the soak (traffic, image server, probe)', liveSeconds(process.pid));
  return snapshot;
}

/** Rows: part, CPU seconds between two snapshots, and its share of the machine's cores over `seconds`. */
export function cpuRows(before: CpuSnapshot, after: CpuSnapshot, seconds: number, cores: number): (string | number)[][] {
  return [...after].map(([part, end]) => {
    const used = end - (before.get(part) ?? 0);
    return [part, Math.round(used), `${((100 * used) / (seconds * cores)).toFixed(1)} %`];
  });
}
