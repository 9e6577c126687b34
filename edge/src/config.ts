/** Edge configuration from Worker variables, validated once per environment object. */
import { z } from 'zod';
import { REGIONS, SERVICES, type RegionId } from '@iris/shared';
import { DEFAULT_CACHE_TTL_MS } from './cache/hot-path.cache.js';
import type { FailureLimits } from './auth/failure-limiter.js';
import type { Bindings } from './env.js';

export interface RegionBackend {
  url: string | undefined;
  secret: string | undefined;
}

export interface EdgeConfig {
  /** Exact host names (lower case, with or without port) → region. */
  regionHosts: ReadonlyMap<string, RegionId>;
  regionServices: Readonly<Record<RegionId, ReadonlySet<string>>>;
  backends: Readonly<Record<RegionId, RegionBackend>>;
  maxSkewSeconds: number;
  backendTimeoutMs: number;
  adminToken: string | undefined;
  /** Why ADMIN_TOKEN cannot be used (too short): the admin API refuses every call and logs this. */
  adminTokenProblem: string | undefined;
  /** Failed admin authentications allowed per client address and window (then 429). */
  adminFailures: FailureLimits;
  /** Failed public authentications allowed per client address, and in total per isolate, per window. */
  authFailures: FailureLimits;
  /** How long the isolate remembers that a key id is unknown (0 = not remembered). */
  unknownKeyTtlMs: number;
  grantsByDefault: boolean;
  /** How long the isolate keeps keys, account state, quotas, grants and registry rows (0 = no cache). */
  cacheTtlMs: number;
  /** The period of the `[[ratelimits]]` binding, sent as `Retry-After` with a 429. */
  rateLimitPeriodSeconds: number;
  /** Add `x-iris-d1-queries` (D1 round trips of the call) to public API answers: benchmarks and tests. */
  reportD1Queries: boolean;
  /** Multipart uploads with a Content-Length of at least this many bytes stream to the backend. */
  streamMinBytes: number;
  /** Request-body bytes the isolate holds at once, over all its calls (then 503/9006). */
  bodyMemoryBytes: number;
  /** How long the audit log keeps an entry. */
  auditRetentionMs: number;
}

export const DEFAULT_MAX_SKEW_SECONDS = 900;
/** ADMIN_TOKEN must be at least this long (`openssl rand -hex 24` gives 48 characters). */
export const MIN_ADMIN_TOKEN_CHARS = 32;
export const DEFAULT_BACKEND_TIMEOUT_MS = 120_000;
/** Smaller bodies are read whole, which is faster for them (docs/edge.md, "Streamed uploads"). */
export const DEFAULT_STREAM_MIN_BYTES = 1024 * 1024;
/** Of an isolate's 128 MB: the largest body (52 MB) beside smaller ones, 32 MB left for everything else. */
export const DEFAULT_BODY_MEMORY_MB = 96;
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

const regionId = z.enum(REGIONS as [RegionId, ...RegionId[]]);
const regionLists = z.record(regionId, z.array(z.string().min(1)));

export class ConfigError extends Error {
  constructor(message: string) {
    super(`edge configuration error: ${message}`);
    this.name = 'ConfigError';
  }
}

function parseJsonVar(name: string, value: string | Record<string, unknown> | undefined): unknown {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigError(`${name} is not valid JSON`);
  }
}

function jsonVar(name: string, value: string | Record<string, unknown> | undefined): Record<RegionId, string[]> | undefined {
  const parsed = parseJsonVar(name, value);
  if (parsed === undefined) return undefined;
  const result = regionLists.safeParse(parsed);
  if (!result.success) throw new ConfigError(`${name} must map region ids (${REGIONS.join(', ')}) to lists of strings`);
  return result.data as Record<RegionId, string[]>;
}

const hostRegions = z.record(z.string().min(1), regionId);

/**
 * REGION_HOSTS in either form: region → host names (`{"ap-southeast": ["hk.api.example.com"]}`) or
 * host name → region (`{"hk.api.example.com": "ap-southeast"}`, as deploy/README.md has long shown).
 */
function regionHostsVar(value: string | Record<string, unknown> | undefined): Map<string, RegionId> {
  const parsed = parseJsonVar('REGION_HOSTS', value);
  const hosts = new Map<string, RegionId>();
  if (parsed === undefined) return hosts;
  const byRegion = regionLists.safeParse(parsed);
  if (byRegion.success) {
    for (const [region, names] of Object.entries(byRegion.data)) for (const host of names) hosts.set(host.trim().toLowerCase(), region as RegionId);
    return hosts;
  }
  const byHost = hostRegions.safeParse(parsed);
  if (!byHost.success) {
    throw new ConfigError(`REGION_HOSTS must map region ids (${REGIONS.join(', ')}) to lists of host names, or host names to region ids`);
  }
  for (const [host, region] of Object.entries(byHost.data)) hosts.set(host.trim().toLowerCase(), region as RegionId);
  return hosts;
}

function positiveNumber(name: string, value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number`);
  return n;
}

function nonNegativeNumber(name: string, value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a number ≥ 0`);
  return n;
}

function wholeNumber(name: string, value: string | number | undefined, fallback: number): number {
  const n = nonNegativeNumber(name, value, fallback);
  if (!Number.isInteger(n)) throw new ConfigError(`${name} must be a whole number`);
  return n;
}

function adminTokenProblem(token: string | undefined): string | undefined {
  if (token && token.length < MIN_ADMIN_TOKEN_CHARS) {
    return `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_CHARS} characters (e.g. openssl rand -hex 24); the admin API refuses every call until it is`;
  }
  return undefined;
}

function parseConfig(env: Bindings): EdgeConfig {
  const regionHosts = regionHostsVar(env.REGION_HOSTS);
  const overrides = jsonVar('REGION_SERVICES', env.REGION_SERVICES);
  const regionServices = {} as Record<RegionId, ReadonlySet<string>>;
  for (const region of REGIONS) {
    regionServices[region] = new Set(overrides?.[region] ?? SERVICES.filter((s) => s.regions.includes(region)).map((s) => s.id));
  }
  const grants = (env.DEFAULT_GRANTS ?? 'all').trim().toLowerCase();
  if (grants !== 'all' && grants !== 'none') throw new ConfigError('DEFAULT_GRANTS must be "all" or "none"');
  return {
    regionHosts,
    regionServices,
    backends: {
      'cn-east': { url: env.BACKEND_URL_CN_EAST || undefined, secret: env.INTERNAL_SECRET_CN_EAST || undefined },
      'ap-southeast': { url: env.BACKEND_URL_AP_SOUTHEAST || undefined, secret: env.INTERNAL_SECRET_AP_SOUTHEAST || undefined },
    },
    maxSkewSeconds: positiveNumber('SIGNATURE_MAX_SKEW_SECONDS', env.SIGNATURE_MAX_SKEW_SECONDS, DEFAULT_MAX_SKEW_SECONDS),
    backendTimeoutMs: positiveNumber('BACKEND_TIMEOUT_MS', env.BACKEND_TIMEOUT_MS, DEFAULT_BACKEND_TIMEOUT_MS),
    adminToken: env.ADMIN_TOKEN || undefined,
    adminTokenProblem: adminTokenProblem(env.ADMIN_TOKEN),
    adminFailures: {
      perAddress: positiveNumber('EDGE_ADMIN_FAILURES_PER_ADDRESS', env.EDGE_ADMIN_FAILURES_PER_ADDRESS, 10),
      total: 0,
      windowMs: 1000 * positiveNumber('EDGE_AUTH_FAILURE_WINDOW_SECONDS', env.EDGE_AUTH_FAILURE_WINDOW_SECONDS, 60),
    },
    authFailures: {
      perAddress: positiveNumber('EDGE_AUTH_FAILURES_PER_ADDRESS', env.EDGE_AUTH_FAILURES_PER_ADDRESS, 30),
      total: wholeNumber('EDGE_AUTH_FAILURES_PER_ISOLATE', env.EDGE_AUTH_FAILURES_PER_ISOLATE, 300),
      windowMs: 1000 * positiveNumber('EDGE_AUTH_FAILURE_WINDOW_SECONDS', env.EDGE_AUTH_FAILURE_WINDOW_SECONDS, 60),
    },
    unknownKeyTtlMs: nonNegativeNumber('EDGE_UNKNOWN_KEY_TTL_MS', env.EDGE_UNKNOWN_KEY_TTL_MS, DEFAULT_CACHE_TTL_MS),
    grantsByDefault: grants === 'all',
    cacheTtlMs: nonNegativeNumber('EDGE_CACHE_TTL_MS', env.EDGE_CACHE_TTL_MS, DEFAULT_CACHE_TTL_MS),
    rateLimitPeriodSeconds: positiveNumber('RATE_LIMIT_PERIOD_SECONDS', env.RATE_LIMIT_PERIOD_SECONDS, 60),
    reportD1Queries: ['1', 'true', 'yes'].includes(String(env.EDGE_REPORT_D1_QUERIES ?? '').toLowerCase()),
    streamMinBytes: nonNegativeNumber('EDGE_STREAM_MIN_BYTES', env.EDGE_STREAM_MIN_BYTES, DEFAULT_STREAM_MIN_BYTES),
    bodyMemoryBytes: 1024 * 1024 * positiveNumber('EDGE_BODY_MEMORY_MB', env.EDGE_BODY_MEMORY_MB, DEFAULT_BODY_MEMORY_MB),
    auditRetentionMs: 86_400_000 * positiveNumber('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, DEFAULT_AUDIT_RETENTION_DAYS),
  };
}

// The env object is the same for every request of an isolate, so parsing happens once.
const cache = new WeakMap<Bindings, EdgeConfig>();

export function loadConfig(env: Bindings): EdgeConfig {
  let config = cache.get(env);
  if (!config) {
    config = parseConfig(env);
    cache.set(env, config);
  }
  return config;
}
