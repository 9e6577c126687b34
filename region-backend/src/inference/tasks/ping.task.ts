import { threadId } from 'node:worker_threads';

/** Health check of the pool: proves a thread is alive and which one answered. */
export default function ping(payload: unknown): { pong: unknown; threadId: number } {
  return { pong: payload, threadId };
}
