/** Webhook settings from the environment, validated at boot like the rest of the configuration. */
import { z } from 'zod';

const flag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const schema = z.object({
  /** Endpoints one account may register in a region. */
  IRIS_WEBHOOKS_PER_ACCOUNT: z.coerce.number().int().min(0).max(1000).default(10),
  /** Time limit of one delivery: name resolution, connection, request and the receiver's answer. */
  IRIS_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Attempts of one delivery before it is marked failed. */
  IRIS_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** Wait before the first retry; doubled at each further one, up to the cap. */
  IRIS_WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.05).max(86_400).default(30),
  IRIS_WEBHOOK_RETRY_CAP_SECONDS: z.coerce.number().min(0.05).max(7 * 86_400).default(6 * 3600),
  /** How often each process looks for due deliveries. */
  IRIS_WEBHOOK_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  /** Deliveries one process sends at once. */
  IRIS_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Finished deliveries (delivered or failed) are kept this long for the endpoint's status, then deleted. */
  IRIS_WEBHOOK_RETENTION_DAYS: z.coerce.number().min(0.001).max(3650).default(7),
  /**
   * Local development and tests only: endpoints may use http and loopback addresses (127.0.0.0/8, ::1).
   * Private, link-local and reserved addresses stay refused.
   */
  IRIS_WEBHOOK_ALLOW_LOOPBACK: flag,
});

export interface WebhookConfig {
  endpointsPerAccount: number;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryCapMs: number;
  pollMs: number;
  concurrency: number;
  retentionMs: number;
  allowLoopback: boolean;
}

export function loadWebhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid webhook configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    endpointsPerAccount: e.IRIS_WEBHOOKS_PER_ACCOUNT,
    timeoutMs: e.IRIS_WEBHOOK_TIMEOUT_MS,
    maxAttempts: e.IRIS_WEBHOOK_MAX_ATTEMPTS,
    retryBaseMs: e.IRIS_WEBHOOK_RETRY_BASE_SECONDS * 1000,
    retryCapMs: Math.max(e.IRIS_WEBHOOK_RETRY_CAP_SECONDS, e.IRIS_WEBHOOK_RETRY_BASE_SECONDS) * 1000,
    pollMs: e.IRIS_WEBHOOK_POLL_MS,
    concurrency: e.IRIS_WEBHOOK_CONCURRENCY,
    retentionMs: e.IRIS_WEBHOOK_RETENTION_DAYS * 86_400_000,
    allowLoopback: e.IRIS_WEBHOOK_ALLOW_LOOPBACK,
  };
}

/** Wait before the attempt after `attempts` failed ones: base × 2^(attempts−1), capped. */
export function retryDelayMs(config: Pick<WebhookConfig, 'retryBaseMs' | 'retryCapMs'>, attempts: number): number {
  return Math.min(config.retryCapMs, config.retryBaseMs * 2 ** Math.max(0, Math.min(attempts - 1, 40)));
}
