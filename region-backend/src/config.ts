/** Backend configuration from the environment, validated at boot: a bad value stops the process with a clear message. */
import path from 'node:path';
import os from 'node:os';
import { z } from 'zod';
import { REGIONS } from '@iris/shared';
import { StartupError } from './util/startup-error.js';
import { loadImageConfig, type ImageConfig } from './images/image-config.js';

const flag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const schema = z.object({
  IRIS_REGION: z.enum(REGIONS as unknown as [string, ...string[]]).default('cn-east'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8801),
  DATABASE_URL: z.string().url(),
  INTERNAL_SECRET: z.string().min(16, 'INTERNAL_SECRET must be at least 16 characters'),
  IRIS_DATA_DIR: z.string().default('.iris'),
  IRIS_ALLOW_PRIVATE_URLS: flag,
  IRIS_INFERENCE_THREADS: z.coerce.number().int().min(1).max(64).default(Math.max(1, os.availableParallelism())),
  IRIS_DOWNLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  IRIS_PUBLIC_EDGE_URL: z.string().url().default('http://127.0.0.1:8787'),
  IRIS_DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface BackendConfig {
  region: string;
  host: string;
  port: number;
  databaseUrl: string;
  internalSecret: string;
  /** Root of everything this backend writes to disk (blobs, indexes, uploads), per region. */
  dataDir: string;
  /** Temporary files (uploads in flight); inside dataDir so renames into the blob store stay on one disk. */
  tmpDir: string;
  allowPrivateUrls: boolean;
  inferenceThreads: number;
  downloadConcurrency: number;
  publicEdgeUrl: string;
  logLevel: string;
  /** How long the first connection to PostgreSQL is retried at boot. */
  dbConnectTimeoutMs: number;
  /** Download limits, pixel limit, stored-copy size and blob directory (images/image-config.ts). */
  images: ImageConfig;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BackendConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StartupError(`invalid backend configuration: ${problems}: fix these environment variables (README, Configuration)`);
  }
  const e = parsed.data;
  return {
    region: e.IRIS_REGION,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    internalSecret: e.INTERNAL_SECRET,
    dataDir: path.resolve(e.IRIS_DATA_DIR, 'regions', e.IRIS_REGION),
    tmpDir: path.resolve(e.IRIS_DATA_DIR, 'regions', e.IRIS_REGION, 'tmp'),
    allowPrivateUrls: e.IRIS_ALLOW_PRIVATE_URLS,
    inferenceThreads: e.IRIS_INFERENCE_THREADS,
    downloadConcurrency: e.IRIS_DOWNLOAD_CONCURRENCY,
    publicEdgeUrl: e.IRIS_PUBLIC_EDGE_URL,
    logLevel: e.LOG_LEVEL,
    dbConnectTimeoutMs: e.IRIS_DB_CONNECT_TIMEOUT_SECONDS * 1000,
    images: loadImageConfig(env, path.resolve(e.IRIS_DATA_DIR, 'regions', e.IRIS_REGION), e.IRIS_ALLOW_PRIVATE_URLS),
  };
}
