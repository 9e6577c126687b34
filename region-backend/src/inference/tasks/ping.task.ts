import { threadId } from 'node:worker_threads';

/**
 * Health check of the pool: proves a thread is alive and which one answered. `{ spinMs }` (or `{ blockMs }`)
 * keeps the thread busy that long without yielding, the way a stuck or CPU-bound task would (the pool's
 * scheduling and time-limit tests and the fairness benchmark).
 */
export default function ping(payload: unknown): { pong: unknown; threadId: number } {
  const p = typeof payload === 'object' && payload !== null ? (payload as { spinMs?: unknown; blockMs?: unknown }) : {};
  const ms = Number(p.spinMs ?? p.blockMs ?? 0);
  const until = performance.now() + Math.min(Math.max(Number.isFinite(ms) ? ms : 0, 0), 600_000);
  while (performance.now() < until) {
    // busy on purpose
  }
  return { pong: payload, threadId };
}
