/** Batch-task settings from the environment, validated at boot like the rest of the configuration. */
import { z } from 'zod';

const schema = z.object({
  /** URLs of one task analysed at once by one backend process (download and analysis overlap). */
  IRIS_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** While interactive analysis or other accounts' calls are being served, an account's lines start at most this often (0: one at a time, unpaced). */
  IRIS_YIELDING_BATCH_LINES_PER_SECOND: z.coerce.number().min(0).max(10_000).default(10),
  /** Inference threads batch work may hold at once (default: all but one, so interactive queries find a free one). */
  IRIS_BATCH_INFERENCE_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** How long a claimed line stays claimed without renewal; renewed every third of it while working. */
  IRIS_BATCH_LEASE_SECONDS: z.coerce.number().min(3).max(3600).default(60),
  /** Attempts per line (a line whose analysis crashed the process is tried again, then answered with an error). */
  IRIS_BATCH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Lines per result file; larger tasks get several files. */
  IRIS_BATCH_LINES_PER_FILE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Largest number of URLs in one task. */
  IRIS_BATCH_MAX_URLS: z.coerce.number().int().min(2).max(1_000_000).default(100_000),
  /** Lifetime of the signed links in `csv` and `download_urls`. */
  IRIS_BATCH_LINK_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400),
  /** How long one job works on a task before handing the rest to a new job (keeps jobs short and fair). */
  IRIS_BATCH_JOB_SECONDS: z.coerce.number().int().min(5).max(3600).default(300),
  /** Seconds per image assumed for a service before any of its work has been measured. */
  IRIS_BATCH_INITIAL_SECONDS_PER_IMAGE: z.coerce.number().positive().max(600).optional(),
  /** Tasks of one account prepared, queued or running at once; one more prepare is refused (400009). */
  IRIS_BATCH_MAX_OPEN_TASKS: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Megabytes of batch files (URL lists and results) one account keeps; a prepare past it is refused (400009). */
  IRIS_BATCH_MAX_KEPT_MB: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** A prepared task not applied within this many hours expires (FAILURE; its file and lines deleted). */
  IRIS_BATCH_PREPARED_HOURS: z.coerce.number().positive().max(24 * 365).default(24),
  /** Finished tasks (SUCCESS, FAILURE, REVOKED) are deleted, files and all, this many days after they finished. */
  IRIS_BATCH_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(7),
  /** Comma-separated service ids: restricts the ready-made services offered for batch (default: all of the region). */
  IRIS_BATCH_SERVICES: z.string().optional(),
});

export interface BatchConfig {
  concurrency: number;
  /** Line starts per second of an account while its task yields. */
  yieldingPerSecond: number;
  /** undefined: the pool's size minus one. */
  inferenceThreads: number | undefined;
  leaseSeconds: number;
  maxAttempts: number;
  linesPerFile: number;
  maxUrls: number;
  linkSeconds: number;
  jobBudgetMs: number;
  initialSecondsPerImage: number | undefined;
  /** null: every ready-made service of the region. */
  services: ReadonlySet<string> | null;
  maxOpenTasks: number;
  maxKeptBytes: number;
  preparedMs: number;
  retentionMs: number;
}

export function loadBatchConfig(env: NodeJS.ProcessEnv): BatchConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid batch configuration: ${problems}`);
  }
  const e = parsed.data;
  const services = e.IRIS_BATCH_SERVICES?.split(',').map((s) => s.trim()).filter(Boolean);
  return {
    concurrency: e.IRIS_BATCH_CONCURRENCY,
    yieldingPerSecond: e.IRIS_YIELDING_BATCH_LINES_PER_SECOND,
    inferenceThreads: e.IRIS_BATCH_INFERENCE_THREADS,
    leaseSeconds: e.IRIS_BATCH_LEASE_SECONDS,
    maxAttempts: e.IRIS_BATCH_MAX_ATTEMPTS,
    linesPerFile: e.IRIS_BATCH_LINES_PER_FILE,
    maxUrls: e.IRIS_BATCH_MAX_URLS,
    linkSeconds: e.IRIS_BATCH_LINK_SECONDS,
    jobBudgetMs: e.IRIS_BATCH_JOB_SECONDS * 1000,
    initialSecondsPerImage: e.IRIS_BATCH_INITIAL_SECONDS_PER_IMAGE,
    services: services?.length ? new Set(services) : null,
    maxOpenTasks: e.IRIS_BATCH_MAX_OPEN_TASKS,
    maxKeptBytes: e.IRIS_BATCH_MAX_KEPT_MB * 1024 * 1024,
    preparedMs: e.IRIS_BATCH_PREPARED_HOURS * 3_600_000,
    retentionMs: e.IRIS_BATCH_RETENTION_DAYS * 86_400_000,
  };
}
