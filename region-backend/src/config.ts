/** Backend configuration from the environment, validated at boot: a bad value stops the process with a clear message. */
import path from 'node:path';
import os from 'node:os';
import { z } from 'zod';
import { REGIONS } from '@iris/shared';
import { loadBatchConfig, type BatchConfig } from './domains/batch/batch-config.js';
import { loadTrainingConfig, type TrainingConfig } from './domains/custom-training/training-config.js';
import { loadDownloadConfig, type DownloadConfig } from './domains/downloads/download-config.js';
import { loadSearchConfig, type SearchConfig } from './domains/search-services/search-config.js';
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
  IRIS_METRICS_HOST: z.string().default('127.0.0.1'),
  IRIS_METRICS_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).optional(),
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
  /** The `/metrics` listener: loopback by default, on PORT + 1000 unless IRIS_METRICS_PORT says (`off`: none; `0`: any free port). */
  metrics: { host: string; port: number | null };
  /** Download limits, pixel limit, stored-copy size and blob directory (images/image-config.ts). */
  images: ImageConfig;
  downloads: DownloadConfig;
  search: SearchConfig;
  batch: BatchConfig;
  training: TrainingConfig;
}

/** IRIS_METRICS_PORT, else PORT + 1000 when PORT is given (9801 and 9802 under npm start), else none. */
function metricsPort(value: 'off' | number | undefined, port: number | undefined): number | null {
  if (value === 'off') return null;
  if (value !== undefined) return value;
  return port !== undefined && port > 0 && port + 1000 <= 65535 ? port + 1000 : null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BackendConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid backend configuration: ${problems}`);
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
    metrics: { host: e.IRIS_METRICS_HOST, port: metricsPort(e.IRIS_METRICS_PORT, env.PORT === undefined ? undefined : e.PORT) },
    images: loadImageConfig(env, path.resolve(e.IRIS_DATA_DIR, 'regions', e.IRIS_REGION), e.IRIS_ALLOW_PRIVATE_URLS),
    downloads: loadDownloadConfig(env),
    search: loadSearchConfig(env),
    batch: loadBatchConfig(env),
    training: loadTrainingConfig(env),
  };
}
