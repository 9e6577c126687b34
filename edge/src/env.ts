import type { Lang, Quotas, RegionId } from '@iris/shared';
import type { EdgeConfig } from './config.js';
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
}

/** The authenticated caller of a public API call. */
export interface Caller {
  accountId: number;
  keyId: string;
  quotas: Quotas;
}

/** The access key named by `x-ca-accesskeyid`, before its signature (if any) is checked. */
export interface Credential {
  keyId: string;
  secret: string;
  accountId: number;
  signatureRequired: boolean;
  quotas: Quotas;
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
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
