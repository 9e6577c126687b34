/** Usage and export settings from the environment, validated at boot like the rest of the configuration. */
import { z } from 'zod';

const schema = z.object({
  /** How often each process writes its usage counts (a crash loses at most this much of them). */
  IRIS_USAGE_FLUSH_SECONDS: z.coerce.number().min(0.1).max(3600).default(5),
  /** Records read per query of a streamed export (keyset pages; the memory an export holds). */
  IRIS_EXPORT_PAGE_ROWS: z.coerce.number().int().min(1).max(10_000).default(1000),
});

export interface UsageConfig {
  flushMs: number;
  exportPageRows: number;
}

export function loadUsageConfig(env: NodeJS.ProcessEnv): UsageConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid usage configuration: ${problems}`);
  }
  return { flushMs: Math.round(parsed.data.IRIS_USAGE_FLUSH_SECONDS * 1000), exportPageRows: parsed.data.IRIS_EXPORT_PAGE_ROWS };
}
