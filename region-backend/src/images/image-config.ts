/** The images module's settings from the environment, validated at boot with the rest of the backend's. */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_MAX_PIXELS, DEFAULT_STORAGE_MAX_SIDE } from './image-decoder.js';
import { createDnsResolver, DEFAULT_DNS_TIMEOUT_MS } from './dns-resolver.js';
import { DEFAULT_FETCH_OPTIONS, type FetchOptions } from './image-fetcher.js';

/** A decode of one image (up to the pixel limit) takes well under this on one core. */
export const DEFAULT_DECODE_TIMEOUT_MS = 20_000;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z.object({
  IRIS_FETCH_MAX_BYTES: positiveInt(DEFAULT_FETCH_OPTIONS.maxBytes),
  IRIS_FETCH_CONNECT_TIMEOUT_MS: positiveInt(DEFAULT_FETCH_OPTIONS.connectTimeoutMs),
  IRIS_FETCH_TIMEOUT_MS: positiveInt(DEFAULT_FETCH_OPTIONS.timeoutMs),
  IRIS_FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(DEFAULT_FETCH_OPTIONS.maxRedirects),
  IRIS_MAX_IMAGE_PIXELS: positiveInt(DEFAULT_MAX_PIXELS),
  IRIS_STORED_IMAGE_MAX_SIDE: z.coerce.number().int().min(64).max(8192).default(DEFAULT_STORAGE_MAX_SIDE),
  IRIS_DECODE_THREADS: z.coerce.number().int().min(1).max(64).default(Math.min(2, Math.max(1, os.availableParallelism()))),
  IRIS_DECODE_TIMEOUT_MS: positiveInt(DEFAULT_DECODE_TIMEOUT_MS),
  IRIS_BLOB_DIR: z.string().optional(),
  /** Pixels of just-stored pictures kept for their first embedding (images/recent-pixels.ts); 0 turns it off. */
  IRIS_RECENT_PIXELS_MB: z.coerce.number().int().min(0).max(16_384).default(128),
  /** Time limit of resolving one host name of a client URL. */
  IRIS_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_DNS_TIMEOUT_MS),
  /** Comma-separated name servers for client URLs (`ip`, `ip:port`, `[ipv6]:port`); default the system's. */
  IRIS_DNS_SERVERS: z.string().optional(),
});

export interface ImageConfig {
  /** Options for fetchImage; `allowPrivateAddresses` comes from IRIS_ALLOW_PRIVATE_URLS. */
  fetch: Pick<FetchOptions, 'maxBytes' | 'connectTimeoutMs' | 'timeoutMs' | 'maxRedirects' | 'allowPrivateAddresses' | 'resolve'>;
  maxPixels: number;
  /** Decode threads and the time limit of one decode (inference/image-decoder-pool.ts). */
  decodeThreads: number;
  decodeTimeoutMs: number;
  storedMaxSide: number;
  /** Root of the file-system blob store (IRIS_BLOB_DIR, default `<shared dir>/blobs`). */
  blobDir: string;
  /** Bytes of pixels of just-stored pictures kept in memory for their first embedding (IRIS_RECENT_PIXELS_MB). */
  recentPixelsBytes: number;
}

export function loadImageConfig(env: NodeJS.ProcessEnv, sharedDir: string, allowPrivateAddresses: boolean): ImageConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid image configuration: ${problems}`);
  }
  const e = parsed.data;
  const servers = e.IRIS_DNS_SERVERS?.split(',').map((s) => s.trim()).filter(Boolean);
  let resolve: FetchOptions['resolve'];
  try {
    resolve = createDnsResolver({ timeoutMs: e.IRIS_DNS_TIMEOUT_MS, ...(servers?.length ? { servers } : {}) });
  } catch (err) {
    throw new Error(`invalid image configuration: IRIS_DNS_SERVERS: ${(err as Error).message}`);
  }
  return {
    fetch: {
      maxBytes: e.IRIS_FETCH_MAX_BYTES,
      connectTimeoutMs: e.IRIS_FETCH_CONNECT_TIMEOUT_MS,
      timeoutMs: e.IRIS_FETCH_TIMEOUT_MS,
      maxRedirects: e.IRIS_FETCH_MAX_REDIRECTS,
      allowPrivateAddresses,
      resolve,
    },
    maxPixels: e.IRIS_MAX_IMAGE_PIXELS,
    decodeThreads: e.IRIS_DECODE_THREADS,
    decodeTimeoutMs: e.IRIS_DECODE_TIMEOUT_MS,
    storedMaxSide: e.IRIS_STORED_IMAGE_MAX_SIDE,
    blobDir: path.resolve(e.IRIS_BLOB_DIR ?? path.join(sharedDir, 'blobs')),
    recentPixelsBytes: e.IRIS_RECENT_PIXELS_MB * 1024 * 1024,
  };
}
