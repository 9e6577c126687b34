import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

/** This thread's nice value (Linux), or null where threads have no priority of their own. */
function threadNice(): number | null {
  try {
    // Fields after the command name's closing parenthesis; nice is the 19th field of the line.
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[16]);
  } catch {
    return null;
  }
}

/**
 * Health check of the pool: proves a thread is alive and which one answered (and at which priority). `{ spinMs }` (or `{ blockMs }`)
 * keeps the thread busy that long without yielding, the way a stuck or CPU-bound task would (the pool's
 * scheduling and time-limit tests and the fairness benchmark).
 */
export default function ping(payload: unknown): { pong: unknown; threadId: number; nice: number | null } {
  const p = typeof payload === 'object' && payload !== null ? (payload as { spinMs?: unknown; blockMs?: unknown }) : {};
  const ms = Number(p.spinMs ?? p.blockMs ?? 0);
  const until = performance.now() + Math.min(Math.max(Number.isFinite(ms) ? ms : 0, 0), 600_000);
  while (performance.now() < until) {
    // busy on purpose
  }
  return { pong: payload, threadId, nice: threadNice() };
}
