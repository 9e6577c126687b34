/** Custom-training settings from the environment, validated when the domain starts (a bad value stops the process). */
import { z } from 'zod';
import { LIMITS } from '@iris/shared';

const schema = z.object({
  IRIS_TRAINING_JOBS: z.coerce.number().int().min(1).max(8).default(1),
  IRIS_TRAINING_POLL_MS: z.coerce.number().int().min(200).max(600_000).default(30_000),
  IRIS_TRAINING_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(3000),
  IRIS_TRAINING_MAX_FAILED_RATIO: z.coerce.number().min(0).max(1).default(0.2),
  IRIS_TRAINING_RUN_BUDGET_MS: z.coerce.number().int().min(1000).max(24 * 3_600_000).default(15 * 60_000),
  IRIS_TRAINING_SEED: z.coerce.number().int().min(0).max(2 ** 32 - 1).default(20_240_601),
  IRIS_CUSTOM_TOPK: z.coerce.number().int().min(1).max(1000).default(5),
});

export interface TrainingConfig {
  /** Training jobs one process runs at once. */
  jobs: number;
  /** How often each process looks for unfinished services nobody is training (a killed process's). */
  pollMs: number;
  /** How long a run waits before looking again at a training set whose downloads are not finished. */
  waitMs: number;
  /** Largest share of a set's images whose download may fail. */
  maxFailedRatio: number;
  /** Usable images every label needs (the specification's 50). */
  minImagesPerLabel: number;
  /** A run hands over to a fresh job after this long (the features computed so far are kept). */
  runBudgetMs: number;
  /** Seed of the validation split and of the optimiser's shuffles: the same data gives the same model. */
  seed: number;
  /** Results of an inference call when `topk` is not given. */
  defaultTopk: number;
}

export function loadTrainingConfig(env: NodeJS.ProcessEnv): TrainingConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid custom-training configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    jobs: e.IRIS_TRAINING_JOBS,
    pollMs: e.IRIS_TRAINING_POLL_MS,
    waitMs: e.IRIS_TRAINING_WAIT_MS,
    maxFailedRatio: e.IRIS_TRAINING_MAX_FAILED_RATIO,
    minImagesPerLabel: LIMITS.imagesPerLabel,
    runBudgetMs: e.IRIS_TRAINING_RUN_BUDGET_MS,
    seed: e.IRIS_TRAINING_SEED,
    defaultTopk: e.IRIS_CUSTOM_TOPK,
  };
}
