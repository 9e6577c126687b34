import { threadId } from 'node:worker_threads';

/**
 * Health check of the pool: proves a thread is alive and which one answered. `{ blockMs }` keeps the thread
 * busy that long without yielding, the way a stuck task would (tests of the pool's time limit use it).
 */
export default function ping(payload: unknown): { pong: unknown; threadId: number } {
  const blockMs = (payload as { blockMs?: unknown } | null)?.blockMs;
  if (typeof blockMs === 'number' && blockMs > 0) {
    const until = Date.now() + blockMs;
    while (Date.now() < until) {
      // busy on purpose
    }
  }
  return { pong: payload, threadId };
}
