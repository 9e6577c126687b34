import type { InferencePool } from '../../inference/inference-pool.js';

/**
 * A view of the inference pool whose every job is background priority, whatever the analysis code asks for:
 * interactive queries are always taken first, so batch work never waits in front of them.
 */
export function backgroundPool(pool: InferencePool): InferencePool {
  const view = Object.create(pool) as InferencePool;
  Object.defineProperty(view, 'run', {
    value: (task: string, payload: unknown, options: Parameters<InferencePool['run']>[2] = {}) => pool.run(task, payload, { ...options, priority: 'background' }),
  });
  return view;
}
