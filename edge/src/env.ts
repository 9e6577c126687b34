import type { KeyScope, Lang, Quotas, RegionId } from '@iris/shared';
import type { EdgeConfig } from './config.js';
import type { CallSession } from './db/call-session.js';
import type { D1Counter, Database } from './db/database.js';
import type { RequestBody } from './http/request-body.js';

/** Worker bindings: D1 plus the variables documented in docs/edge.md (all optional except DB). */
export interface Bindings {
  DB: D1Database;
  ADMIN_TOKEN?: string;
  BACKEND_URL_CN_EAST?: string;
  BACKEND_URL_AP_SOUTHEAST?: string;
  INTERNAL_SECRET_CN_EAST?: string;
  INTERNAL_SECRET_AP_SOUTHEAST?: string;
  /** JSON `{"ap-southeast": ["hk.example.com"], ...}`: extra host names per region. */
  REGION_HOSTS?: string | Record<string, unknown>;
  /** JSON `{"cn-east": ["_0000049", ...], ...}`: replaces the catalogue's region lists. */
  REGION_SERVICES?: string | Record<string, unknown>;
  SIGNATURE_MAX_SKEW_SECONDS?: string | number;
  BACKEND_TIMEOUT_MS?: string | number;
  /** `all` (default): catalogue services are granted unless revoked; `none`: only explicit grants. */
  DEFAULT_GRANTS?: string;
  /** Isolate cache lifetime of keys, accounts, quotas, grants and registry rows (default 5000; 0 = off). */
  EDGE_CACHE_TTL_MS?: string | number;
  /** 32 random bytes (base64): the AES-GCM key of access-key secrets at rest. A Worker secret. */
  SECRETS_MASTER_KEY?: string;
  /** Workers rate-limiting binding: calls per access key (wrangler.toml `[[ratelimits]]`). */
  KEY_RATE_LIMITER?: RateLimit;
  /** Period of KEY_RATE_LIMITER in seconds (Retry-After of a 429); must match wrangler.toml. Default 60. */
  RATE_LIMIT_PERIOD_SECONDS?: string | number;
  /** Multipart uploads of at least this many bytes (Content-Length) stream to the backend (default 1048576). */
  EDGE_STREAM_MIN_BYTES?: string | number;
  /** Failed public authentications (unknown key, disabled key, bad signature) per client address and window (default 30). */
  EDGE_AUTH_FAILURES_PER_ADDRESS?: string | number;
  /** Failed public authentications per isolate and window before uncached keys are refused (default 300; 0 = no limit). */
  EDGE_AUTH_FAILURES_PER_ISOLATE?: string | number;
  /** Failed admin authentications per client address and window (default 10). */
  EDGE_ADMIN_FAILURES_PER_ADDRESS?: string | number;
  /** The window of the failed-authentication limits, in seconds (default 60). */
  EDGE_AUTH_FAILURE_WINDOW_SECONDS?: string | number;
  /** How long the isolate remembers an unknown key id (default 5000; 0 = off). */
  EDGE_UNKNOWN_KEY_TTL_MS?: string | number;
  /** Request-body megabytes an isolate holds at once over all its calls; beyond, 503/9006 (default 96). */
  EDGE_BODY_MEMORY_MB?: string | number;
  /** Days the audit log keeps an entry (default 90); older entries are pruned as new ones are written. */
  AUDIT_RETENTION_DAYS?: string | number;
  /** `1`: answer with `x-iris-d1-queries` (D1 round trips of the call). */
  EDGE_REPORT_D1_QUERIES?: string;
}

/** The authenticated caller of a public API call. */
export interface Caller {
  accountId: number;
  keyId: string;
  keyHash: string;
  /** The key's public name (audit log, `current` in /iris/keys). */
  keyRef: string | null;
  /** null: every scope. */
  scopes: readonly KeyScope[] | null;
  quotas: Quotas;
}

/** The access key named by `x-ca-accesskeyid`, before its signature (if any) is checked. */
export interface Credential {
  keyId: string;
  keyHash: string;
  secret: string;
  accountId: number;
  signatureRequired: boolean;
  quotas: Quotas;
  keyRef: string | null;
  scopes: readonly KeyScope[] | null;
}

export interface Variables {
  requestId: string;
  startedAt: number;
  config: EdgeConfig;
  region: RegionId;
  lang: Lang;
  /** Path without trailing slashes, still percent-encoded, as forwarded to a backend. */
  forwardPath: string;
  body: RequestBody;
  credential: Credential;
  caller: Caller;
  /** The call's D1 session (public API), its drizzle view and its round-trip counter. */
  session: CallSession;
  db: Database;
  d1: D1Counter;
  /** Set by a handler whose call is audited: what changed, the target and account when the path does not say. */
  auditDetail?: Record<string, unknown>;
  auditTarget?: string;
  auditAccountId?: number;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
