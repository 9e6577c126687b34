/** Blob garbage collection settings from the environment, validated at boot like the rest of the configuration. */
import { z } from 'zod';

const schema = z.object({
  /** `off` stops this process collecting (blobs are still registered, so another process or a later boot collects). */
  IRIS_BLOB_GC: z.enum(['on', 'off']).default('on'),
  /** How often each process looks for blobs that lost their last reference. */
  IRIS_BLOB_GC_INTERVAL_SECONDS: z.coerce.number().min(1).max(86_400).default(30),
  /** A blob written less than this long ago is never collected (a download between storing and recording it). */
  IRIS_BLOB_GC_GRACE_SECONDS: z.coerce.number().min(0).max(7 * 86_400).default(600),
  /** Blobs looked at per query of a collection run. */
  IRIS_BLOB_GC_BATCH: z.coerce.number().int().min(1).max(10_000).default(200),
});

export interface BlobGcConfig {
  enabled: boolean;
  intervalSeconds: number;
  graceSeconds: number;
  batch: number;
}

export function loadBlobGcConfig(env: NodeJS.ProcessEnv): BlobGcConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid blob collection configuration: ${problems}`);
  }
  return {
    enabled: parsed.data.IRIS_BLOB_GC === 'on',
    intervalSeconds: parsed.data.IRIS_BLOB_GC_INTERVAL_SECONDS,
    graceSeconds: parsed.data.IRIS_BLOB_GC_GRACE_SECONDS,
    batch: parsed.data.IRIS_BLOB_GC_BATCH,
  };
}
