import type { InferencePool } from '../../inference/inference-pool.js';
import { Semaphore } from '../downloads/semaphore.js';

/**
 * A view of the inference pool for batch work: every job is background priority, whatever the analysis code
 * asks for, so interactive queries are always taken first; and at most `maxThreads` batch jobs are on the
 * pool's threads at once, so with the default (all threads but one) an interactive query finds a free
 * thread instead of waiting for a batch job to end.
 */
export function backgroundPool(pool: InferencePool, maxThreads: number): InferencePool {
  const slots = new Semaphore(Math.max(1, maxThreads));
  const view = Object.create(pool) as InferencePool;
  const run: InferencePool['run'] = async (task, payload, options = {}) => {
    const release = await slots.acquire();
    try {
      return await pool.run(task, payload, { ...options, priority: 'background' });
    } finally {
      release();
    }
  };
  Object.defineProperty(view, 'run', { value: run });
  return view;
}

/** Default share of the pool for batch work: every thread but one (one thread on a single-thread pool). */
export function defaultBatchThreads(poolSize: number): number {
  return Math.max(1, poolSize - 1);
}
