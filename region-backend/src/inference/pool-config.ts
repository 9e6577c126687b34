/** Per-account fairness and time limits of the inference pool, from the environment (validated at boot). */
import { z } from 'zod';
import { defaultPoolLimits, type PoolLimits } from './inference-pool.js';

const optionalInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

const schema = z.object({
  IRIS_ACCOUNT_INFERENCE_THREADS: optionalInt(1, 128),
  IRIS_LOW_PRIORITY_THREADS: optionalInt(0, 64),
  IRIS_FIRST_TIER_PRIORITY_BOOST: optionalInt(0, 20),
  IRIS_ACCOUNT_INFERENCE_QUEUE: optionalInt(1, 10_000),
  IRIS_INFERENCE_TIMEOUT_MS: optionalInt(100, 3_600_000),
  IRIS_BACKGROUND_TASK_TIMEOUT_MS: optionalInt(100, 24 * 3_600_000),
});

export function loadPoolLimits(env: NodeJS.ProcessEnv, threads: number): PoolLimits {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid inference configuration: ${problems}`);
  }
  const e = parsed.data;
  const defaults = defaultPoolLimits(threads, e.IRIS_LOW_PRIORITY_THREADS ?? threads);
  return {
    lowPriorityThreads: defaults.lowPriorityThreads,
    firstTierBoost: e.IRIS_FIRST_TIER_PRIORITY_BOOST ?? defaults.firstTierBoost,
    accountThreads: e.IRIS_ACCOUNT_INFERENCE_THREADS ?? defaults.accountThreads,
    accountQueue: e.IRIS_ACCOUNT_INFERENCE_QUEUE ?? defaults.accountQueue,
    interactiveTimeoutMs: e.IRIS_INFERENCE_TIMEOUT_MS ?? defaults.interactiveTimeoutMs,
    backgroundTimeoutMs: e.IRIS_BACKGROUND_TASK_TIMEOUT_MS ?? defaults.backgroundTimeoutMs,
  };
}
