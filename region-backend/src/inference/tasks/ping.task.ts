import { threadId } from 'node:worker_threads';

/**
 * Health check of the pool: proves a thread is alive and which one answered. `{ spinMs }` keeps the thread
 * busy that long first (the pool's scheduling and time-limit tests and the fairness benchmark).
 */
export default function ping(payload: unknown): { pong: unknown; threadId: number } {
  const spinMs = typeof payload === 'object' && payload !== null ? Number((payload as { spinMs?: unknown }).spinMs ?? 0) : 0;
  const until = performance.now() + Math.min(Math.max(spinMs, 0), 600_000);
  while (performance.now() < until) {
    // busy on purpose: a CPU-bound task
  }
  return { pong: payload, threadId };
}
