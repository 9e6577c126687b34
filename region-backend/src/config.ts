import { createHmac, randomUUID } from 'node:crypto';
/** Backend configuration from the environment, validated at boot: a bad value stops the process with a clear message. */
import path from 'node:path';
import os from 'node:os';
import { z } from 'zod';
import { REGIONS } from '@iris/shared';
import { loadBatchConfig, type BatchConfig } from './domains/batch/batch-config.js';
import { loadBlobGcConfig, type BlobGcConfig } from './domains/blob-gc/blob-gc-config.js';
import { loadUsageConfig, type UsageConfig } from './domains/usage/usage-config.js';
import { loadTrainingConfig, type TrainingConfig } from './domains/custom-training/training-config.js';
import { loadDownloadConfig, type DownloadConfig } from './domains/downloads/download-config.js';
import { loadSearchConfig, type SearchConfig } from './domains/search-services/search-config.js';
import { loadWebhookConfig, type WebhookConfig } from './domains/webhooks/webhook-config.js';
import { StartupError } from './util/startup-error.js';
import { loadImageConfig, type ImageConfig } from './images/image-config.js';
import { loadPoolLimits } from './inference/pool-config.js';
import { readBuildInfo, type BuildInfo } from './observability/build-info.js';
import type { PoolLimits } from './inference/inference-pool.js';

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
  /** The region's store that every process of the region mounts (blobs, batch files, uploads in flight). */
  IRIS_SHARED_DIR: z.string().min(1).optional(),
  /** This process's rebuildable caches (index files, converted models). */
  IRIS_CACHE_DIR: z.string().min(1).optional(),
  IRIS_ALLOW_PRIVATE_URLS: flag,
  IRIS_INFERENCE_THREADS: z.coerce.number().int().min(1).max(64).default(Math.max(1, os.availableParallelism())),
  IRIS_WATCHDOG_MS: z.coerce.number().int().min(0).default(30_000),
  IRIS_DOWNLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  IRIS_ACCOUNT_UPLOADS: z.coerce.number().int().min(1).max(1000).default(8),
  IRIS_PROCESS_UPLOADS: z.coerce.number().int().min(1).max(100_000).default(64),
  IRIS_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(1).max(86_400).default(600),
  IRIS_ACCOUNT_FETCHES: z.coerce.number().int().min(1).max(1000).default(4),
  IRIS_PROCESS_FETCHES: z.coerce.number().int().min(1).max(10_000).default(64),
  IRIS_YIELDING_BULK_ROWS_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(200),
  IRIS_PUBLIC_EDGE_URL: z.string().url().default('http://127.0.0.1:8787'),
  IRIS_METRICS_HOST: z.string().default('127.0.0.1'),
  IRIS_METRICS_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).optional(),
  /** PEM certificate chain and private key: the backend listens on HTTPS (edge → backend over TLS). */
  IRIS_TLS_CERT_FILE: z.string().optional(),
  IRIS_TLS_KEY_FILE: z.string().optional(),
  /** Key of signed result links; unset: derived from INTERNAL_SECRET (a different key, same secret to keep). */
  IRIS_LINK_SECRET: z.string().min(16, 'IRIS_LINK_SECRET must be at least 16 characters').optional(),
  IRIS_DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  /** Refuse (500) any answer with an error code its contract operation does not declare, instead of logging it: tests. */
  IRIS_STRICT_CONTRACT: z.enum(['0', '1']).default('0'),
  IRIS_WARM_MODELS: z.enum(['0', '1']).default('1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  IRIS_VECTOR_STORE: z.enum(['hnsw', 'usearch', 'pgvector']).default('hnsw'),
  IRIS_VECTOR_DATABASE_URL: z.string().url().optional(),
  IRIS_VECTOR_TYPE: z.enum(['vector', 'halfvec']).default('vector'),
});

export interface BackendConfig {
  region: string;
  host: string;
  port: number;
  databaseUrl: string;
  internalSecret: string;
  /**
   * The region's shared store (IRIS_SHARED_DIR, default `<IRIS_DATA_DIR>/regions/<region>`): blobs, batch
   * files and uploads in flight, on one file system that every process of the region mounts.
   */
  sharedDir: string;
  /** This process's rebuildable caches (IRIS_CACHE_DIR, default the same region folder): index files. */
  cacheDir: string;
  /** Temporary files (uploads in flight) of every process: in the shared store, so renames into the blob store stay on one file system. */
  tmpDir: string;
  /** This process's identity for its lease rows in PostgreSQL (new at every start). */
  instanceId: string;
  /** This process's own folder of uploads in flight, in `tmpDir` (swept once its instance lease has expired). */
  uploadDir: string;
  allowPrivateUrls: boolean;
  inferenceThreads: number;
  /** Per-account threads, queue and time limits of the inference pool (inference/pool-config.ts). */
  poolLimits: PoolLimits;
  /** Each inference thread loads and runs every model of the pack before its first job (IRIS_WARM_MODELS). */
  warmModels: boolean;
  /** Event-loop watchdog: blocked longer than this, `/livez` fails and the process exits (0 = off). */
  watchdogMs: number;
  downloadConcurrency: number;
  /** Uploads (multipart or large bodies) one account may have in flight in a process. */
  accountUploads: number;
  /** Uploads the whole process may have in flight (each up to 64 MB of temp disk). */
  processUploads: number;
  /** Time a request may take to arrive whole (headers and body); past it the connection is closed (408). */
  requestTimeoutMs: number;
  /** Client-URL downloads of interactive calls in flight: one account's, and the whole process's (http/fetch-slots.ts). */
  fetchSlots: { perAccount: number; perProcess: number };
  /** Rows per second of an account's bulk files while it calls in parallel and others are served (0: one file at a time, unspaced). */
  yieldingBulkRowsPerSecond: number;
  /** Base of result links when the call did not say which public address it came through. */
  publicEdgeUrl: string;
  /** Signs result links (never the internal secret itself). */
  linkSecret: string;
  /** Listen on HTTPS with these PEM files (both set), else plain HTTP. */
  tls: { certFile: string; keyFile: string } | undefined;
  logLevel: string;
  /** An undeclared error code answers 500 (tests) instead of being logged and counted. */
  strictContract: boolean;
  /** The `/metrics` listener (IRIS_METRICS_HOST, loopback by default; IRIS_METRICS_PORT, none when unset). */
  metrics: { host: string; port: number | null };
  /** How long the first connection to PostgreSQL is retried at boot. */
  dbConnectTimeoutMs: number;
  /** Download limits, pixel limit, stored-copy size and blob directory (images/image-config.ts). */
  images: ImageConfig;
  downloads: DownloadConfig;
  /** Blob garbage collection (domains/blob-gc/blob-gc-config.ts). */
  blobGc: BlobGcConfig;
  usage: UsageConfig;
  search: SearchConfig;
  batch: BatchConfig;
  training: TrainingConfig;
  /** Webhook endpoints and deliveries (domains/webhooks/webhook-config.ts). */
  webhooks: WebhookConfig;
  /** Where search indexes live: in each process's memory (hnsw, usearch) or in a pgvector database shared by all. */
  vectors: VectorConfig;
  /** Version, commit (IRIS_BUILD_COMMIT) and Node version, reported by /readyz and iris_build_info. */
  build: BuildInfo;
}

export interface VectorConfig {
  /** hnsw: float32 graph in memory; usearch: int8 graph in memory, float32 vectors in a file; pgvector: shared tables. */
  store: 'hnsw' | 'usearch' | 'pgvector';
  /** pgvector: the vector database (default: the region's own database, DATABASE_URL). */
  databaseUrl: string;
  /** pgvector column type: float32 `vector` or float16 `halfvec`. */
  type: 'vector' | 'halfvec';
}

/** IRIS_METRICS_PORT (`off` or unset: no listener; `0`: any free port). `npm start` sets API port + 1000. */
function metricsPort(value: 'off' | number | undefined): number | null {
  return value === undefined || value === 'off' ? null : value;
}

function tlsFiles(certFile: string | undefined, keyFile: string | undefined): BackendConfig['tls'] {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('invalid backend configuration: IRIS_TLS_CERT_FILE and IRIS_TLS_KEY_FILE go together');
  return { certFile, keyFile };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BackendConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StartupError(`invalid backend configuration: ${problems}: fix these environment variables (README, Configuration)`);
  }
  const e = parsed.data;
  const regionDir = path.resolve(e.IRIS_DATA_DIR, 'regions', e.IRIS_REGION);
  const sharedDir = e.IRIS_SHARED_DIR ? path.resolve(e.IRIS_SHARED_DIR) : regionDir;
  const tmpDir = path.join(sharedDir, 'tmp');
  const instanceId = randomUUID();
  return {
    region: e.IRIS_REGION,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    internalSecret: e.INTERNAL_SECRET,
    sharedDir,
    cacheDir: e.IRIS_CACHE_DIR ? path.resolve(e.IRIS_CACHE_DIR) : regionDir,
    tmpDir,
    instanceId,
    uploadDir: path.join(tmpDir, instanceId),
    allowPrivateUrls: e.IRIS_ALLOW_PRIVATE_URLS,
    inferenceThreads: e.IRIS_INFERENCE_THREADS,
    poolLimits: loadPoolLimits(env, e.IRIS_INFERENCE_THREADS),
    warmModels: e.IRIS_WARM_MODELS === '1',
    watchdogMs: e.IRIS_WATCHDOG_MS,
    downloadConcurrency: e.IRIS_DOWNLOAD_CONCURRENCY,
    accountUploads: e.IRIS_ACCOUNT_UPLOADS,
    processUploads: e.IRIS_PROCESS_UPLOADS,
    requestTimeoutMs: e.IRIS_REQUEST_TIMEOUT_SECONDS * 1000,
    fetchSlots: { perAccount: e.IRIS_ACCOUNT_FETCHES, perProcess: e.IRIS_PROCESS_FETCHES },
    yieldingBulkRowsPerSecond: e.IRIS_YIELDING_BULK_ROWS_PER_SECOND,
    publicEdgeUrl: e.IRIS_PUBLIC_EDGE_URL,
    tls: tlsFiles(e.IRIS_TLS_CERT_FILE, e.IRIS_TLS_KEY_FILE),
    linkSecret: e.IRIS_LINK_SECRET ?? createHmac('sha256', e.INTERNAL_SECRET).update('iris batch result links').digest('hex'),
    logLevel: e.LOG_LEVEL,
    strictContract: e.IRIS_STRICT_CONTRACT === '1',
    metrics: { host: e.IRIS_METRICS_HOST, port: metricsPort(e.IRIS_METRICS_PORT) },
    dbConnectTimeoutMs: e.IRIS_DB_CONNECT_TIMEOUT_SECONDS * 1000,
    images: loadImageConfig(env, sharedDir, e.IRIS_ALLOW_PRIVATE_URLS),
    downloads: loadDownloadConfig(env),
    blobGc: loadBlobGcConfig(env),
    usage: loadUsageConfig(env),
    search: loadSearchConfig(env),
    batch: loadBatchConfig(env),
    training: loadTrainingConfig(env),
    webhooks: loadWebhookConfig(env),
    vectors: { store: e.IRIS_VECTOR_STORE, databaseUrl: e.IRIS_VECTOR_DATABASE_URL ?? e.DATABASE_URL, type: e.IRIS_VECTOR_TYPE },
    build: readBuildInfo(env),
  };
}
