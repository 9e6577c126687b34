/** Download retry and lease settings from the environment, validated at boot like the rest of the configuration. */
import { z } from 'zod';

const schema = z.object({
  /** Attempts per URL before a transient failure (timeout, 5xx, network) becomes final. */
  IRIS_DOWNLOAD_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(4),
  /** First retry delay; each further retry waits four times longer (capped at 10 minutes). */
  IRIS_DOWNLOAD_RETRY_SECONDS: z.coerce.number().min(0).max(600).default(2),
  /** How long a claimed record stays claimed without a renewal; renewed every third of it while working. */
  IRIS_DOWNLOAD_LEASE_SECONDS: z.coerce.number().min(3).max(3600).default(30),
  /** Downloads one account may run at once in a process (the rest of IRIS_DOWNLOAD_CONCURRENCY stays for others). */
  IRIS_ACCOUNT_DOWNLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  /** While other accounts' calls are being served, an account's downloads start at most this often (0: no pacing). */
  IRIS_YIELDING_DOWNLOADS_PER_SECOND: z.coerce.number().min(0).max(10_000).default(10),
});

export interface DownloadConfig {
  maxAttempts: number;
  retrySeconds: number;
  leaseSeconds: number;
  /** Per-account share of the process's downloads; default half of it (at least one). */
  accountConcurrency: number | undefined;
  /** Download starts per second of an account while it yields to others' calls (0: one at a time, unpaced). */
  yieldingPerSecond: number;
}

export function loadDownloadConfig(env: NodeJS.ProcessEnv): DownloadConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid download configuration: ${problems}`);
  }
  return {
    maxAttempts: parsed.data.IRIS_DOWNLOAD_MAX_ATTEMPTS,
    retrySeconds: parsed.data.IRIS_DOWNLOAD_RETRY_SECONDS,
    leaseSeconds: parsed.data.IRIS_DOWNLOAD_LEASE_SECONDS,
    accountConcurrency: parsed.data.IRIS_ACCOUNT_DOWNLOAD_CONCURRENCY,
    yieldingPerSecond: parsed.data.IRIS_YIELDING_DOWNLOADS_PER_SECOND,
  };
}

/** Delay before attempt `attempt + 1` after `attempt` transient failures. */
export function retryDelaySeconds(config: DownloadConfig, attempt: number): number {
  return Math.min(600, config.retrySeconds * 4 ** Math.max(0, attempt - 1));
}
