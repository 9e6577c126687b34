/**
 * The operator API at the edge (`/admin`, `Authorization: Bearer <ADMIN_TOKEN>`): accounts, access keys,
 * quotas, service grants, platform health, and the operator routes of each region's backend
 * (`/admin/regions/{region}/...`: logo library, revocations). Not in the specification: Iris's own.
 */
import { z } from 'zod';
import { QUOTA_FIELDS } from '../limits.js';
import { REGIONS, type RegionId } from '../catalogue.js';
import { FutureTime, KeyName, KeyScopeName, KeyScopes, MAX_KEY_LIFETIME_DAYS } from './account-keys.js';
import { op, requestId, timestamp, upload, type Operation } from './common.js';

export const CreateAccountBody = z.object({
  name: z.string().trim().min(1).max(200),
  id: z.number().int().min(1).optional().describe('a chosen account id (default: the next free one)'),
});

export const CreateKeyBody = z.object({
  key_id: z.string().regex(/^[A-Za-z0-9._~-]{4,128}$/, 'key_id: 4-128 characters of A-Z a-z 0-9 . _ ~ -').optional().describe('default: generated'),
  secret: z
    .string()
    .min(8)
    .max(256)
    .refine((s) => s.trim() === s, 'secret must not start or end with white space')
    .optional()
    .describe('default: generated'),
  signature_required: z.boolean().optional(),
  name: KeyName.optional(),
  scopes: KeyScopes.optional().describe('default: every scope'),
  expires_at: FutureTime(MAX_KEY_LIFETIME_DAYS).optional().describe('default: never'),
});

export const UpdateKeyBody = z.object({
  enabled: z.boolean().optional(),
  signature_required: z.boolean().optional(),
  name: KeyName.nullable().optional(),
  scopes: KeyScopes.nullable().optional().describe('null: every scope'),
  expires_at: FutureTime(MAX_KEY_LIFETIME_DAYS).nullable().optional().describe('null: never'),
});

const quota = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();
type QuotaApiName = (typeof QUOTA_FIELDS)[number]['api'];
/** Every quota by its API name; null restores the default. */
export const QuotasBody = z.object(Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, quota])) as Record<QuotaApiName, typeof quota>).strict();
export const QuotaValues = z.object(Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, z.number().int()])) as Record<QuotaApiName, z.ZodNumber>);

export const Account = z.object({ id: z.number().int(), name: z.string(), disabled: z.boolean(), signature_required: z.boolean().describe('every key must sign'), created_at: timestamp });
export const AccessKey = z.object({
  key_id: z.string().optional().describe('only when the caller named the key (by-id routes, creates)'),
  key_id_hint: z.string().describe('first characters of the key id (only its hash is stored)'),
  key_ref: z.string().nullable().describe('names the key in /iris/keys and the audit log'),
  name: z.string().nullable(),
  scopes: z.array(KeyScopeName).nullable().describe('null: every scope'),
  expires_at: timestamp.nullable(),
  account_id: z.number().int(),
  enabled: z.boolean(),
  signature_required: z.boolean(),
  created_at: timestamp,
  secret: z.string().optional().describe('only in the answer that created the key'),
});
export const AccountDetails = Account.extend({ keys: z.array(AccessKey), quotas: QuotaValues });
export const Grants = z.object({
  account_id: z.number().int(),
  default: z.enum(['all', 'none']).describe('what an account without an explicit grant gets'),
  results: z.array(z.object({ service_id: z.string(), name: z.string(), granted: z.boolean(), explicit: z.boolean(), regions: z.array(z.string()) })),
});

export const RegionHealth = z.object({
  backend_configured: z.boolean(),
  reachable: z.boolean(),
  ready: z.boolean(),
  status: z.number().int().optional(),
  checks: z.unknown().optional().describe("the backend's /readyz checks"),
  error: z.string().optional(),
  ms: z.number().optional(),
});
export const Health = z.object({ status: z.enum(['ok', 'degraded']), d1: z.literal('ok'), regions: z.record(RegionHealth) });

export const LogoBrand = z.object({
  id: z.number().int(),
  puid: z.string(),
  brand: z.string(),
  brand_zh: z.string().nullable(),
  n_images: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});
export const LogoReference = z.object({ id: z.number().int(), filename: z.string(), width: z.number().int(), height: z.number().int(), n_keypoints: z.number().int(), created_at: timestamp });
export const LogoBrandDetails = LogoBrand.extend({ images: z.array(LogoReference), request_id: requestId });
export const RegisterLogo = z.object({ brand: z.string(), brand_zh: z.string().optional(), images: upload.describe('one or more reference images (repeat the part)') }).passthrough();
export const RevokeWorkBody = z.object({
  account_id: z.union([z.number().int(), z.string()]),
  service_id: z.string().optional().describe('only the work of this service (a revoked grant)'),
  reason: z.string().max(200).optional(),
});
export const RevokeWorkResult = z.object({ ok: z.boolean(), batch_tasks: z.number().int(), downloads: z.number().int(), trainings: z.number().int(), request_id: requestId });

const accountId = z.object({ id: z.string().regex(/^\d+$/).describe('account id') });
const byKey = z.object({ key_id: z.string().min(1).max(128) });
const byGrant = accountId.extend({ service_id: z.string().regex(/^_\d{7}$/) });
const byRegion = z.object({ region: z.enum(REGIONS as [RegionId, ...RegionId[]]) });
const tag = 'Admin';
type AdminFields = Omit<Operation, 'servedBy' | 'tag' | 'errors' | 'extension' | 'admin'> & Partial<Pick<Operation, 'servedBy'>>;
const admin = <const O extends AdminFields>(operation: O) => op({ servedBy: 'edge' as const, tag, errors: 'resource' as const, extension: 'iris' as const, admin: true, ...operation });

const revocationHeader = ' (header x-iris-revocation: how each region stopped the queued work)';
export const adminOperations = [
  admin({ id: 'adminHealth', method: 'get', path: '/admin/health', summary: "Health of the edge's database and each region's backend (its /readyz)", response: Health }),
  admin({ id: 'adminListAccounts', method: 'get', path: '/admin/accounts', summary: 'List accounts', response: z.object({ results: z.array(Account) }) }),
  admin({ id: 'adminCreateAccount', method: 'post', path: '/admin/accounts', summary: 'Create an account', body: { schema: CreateAccountBody, forms: ['json'], required: true }, response: Account, status: 201 }),
  admin({ id: 'adminGetAccount', method: 'get', path: '/admin/accounts/{id}', summary: 'An account with its keys and quotas', params: accountId, response: AccountDetails }),
  admin({ id: 'adminDisableAccount', method: 'post', path: '/admin/accounts/{id}/disable', summary: `Disable an account${revocationHeader}`, params: accountId, response: Account }),
  admin({ id: 'adminEnableAccount', method: 'post', path: '/admin/accounts/{id}/enable', summary: 'Enable an account', params: accountId, response: Account }),
  admin({ id: 'adminListKeys', method: 'get', path: '/admin/accounts/{id}/keys', summary: "An account's access keys (never their secrets)", params: accountId, response: z.object({ results: z.array(AccessKey) }) }),
  admin({
    id: 'adminEnsureKey', method: 'post', path: '/admin/accounts/{id}/keys', summary: 'Create an access key (201; its secret is in this answer only); 409 when the key id exists',
    params: accountId, body: { schema: CreateKeyBody, forms: ['json'] }, response: AccessKey, status: 201,
  }),
  admin({ id: 'adminGetQuotas', method: 'get', path: '/admin/accounts/{id}/quotas', summary: "An account's quotas", params: accountId, response: QuotaValues }),
  admin({ id: 'adminSetQuotas', method: 'put', path: '/admin/accounts/{id}/quotas', summary: 'Change quotas (null restores the default)', params: accountId, body: { schema: QuotasBody, forms: ['json'], required: true }, response: QuotaValues }),
  admin({ id: 'adminPatchQuotas', method: 'patch', path: '/admin/accounts/{id}/quotas', summary: 'Change quotas (null restores the default)', params: accountId, body: { schema: QuotasBody, forms: ['json'], required: true }, response: QuotaValues }),
  admin({ id: 'adminListGrants', method: 'get', path: '/admin/accounts/{id}/grants', summary: "An account's ready-made services: granted or not, and where offered", params: accountId, response: Grants }),
  admin({ id: 'adminGrant', method: 'put', path: '/admin/accounts/{id}/grants/{service_id}', summary: 'Grant a ready-made service', params: byGrant, response: Grants }),
  admin({ id: 'adminGrantPost', method: 'post', path: '/admin/accounts/{id}/grants/{service_id}', summary: 'Grant a ready-made service', params: byGrant, response: Grants }),
  admin({ id: 'adminRevokeGrant', method: 'delete', path: '/admin/accounts/{id}/grants/{service_id}', summary: `Revoke a ready-made service${revocationHeader}`, params: byGrant, response: Grants }),
  admin({ id: 'adminGetKey', method: 'get', path: '/admin/keys/{key_id}', summary: 'An access key by id', params: byKey, response: AccessKey }),
  admin({ id: 'adminPatchKey', method: 'patch', path: '/admin/keys/{key_id}', summary: 'Enable or disable a key, require signatures', params: byKey, body: { schema: UpdateKeyBody, forms: ['json'], required: true }, response: AccessKey }),
  admin({ id: 'adminDisableKey', method: 'post', path: '/admin/keys/{key_id}/disable', summary: 'Disable an access key', params: byKey, response: AccessKey }),
  admin({ id: 'adminEnableKey', method: 'post', path: '/admin/keys/{key_id}/enable', summary: 'Enable an access key', params: byKey, response: AccessKey }),
  admin({
    id: 'adminRegisterLogo', method: 'post', path: '/admin/regions/{region}/logos', summary: "Register a brand's reference logos in a region's logo library", servedBy: 'backend',
    params: byRegion, body: { schema: RegisterLogo, forms: ['multipart'], required: true }, response: LogoBrandDetails,
  }),
  admin({ id: 'adminListLogos', method: 'get', path: '/admin/regions/{region}/logos', summary: "A region's logo library", servedBy: 'backend', params: byRegion, response: z.object({ results: z.array(LogoBrand), request_id: requestId }) }),
  admin({
    id: 'adminGetLogo', method: 'get', path: '/admin/regions/{region}/logos/{brand_id}', summary: 'A brand of the logo library with its reference images', servedBy: 'backend',
    params: byRegion.extend({ brand_id: z.string() }), response: LogoBrandDetails,
  }),
  admin({ id: 'adminDeleteLogo', method: 'delete', path: '/admin/regions/{region}/logos/{brand_id}', summary: 'Remove a brand from the logo library', servedBy: 'backend', params: byRegion.extend({ brand_id: z.string() }), response: null, status: 204 }),
  admin({
    id: 'adminRevokeWork', method: 'post', path: '/admin/regions/{region}/revocations', summary: "Stop an account's queued and running work in a region (the edge sends it on disable and revoke)", servedBy: 'backend',
    params: byRegion, body: { schema: RevokeWorkBody, forms: ['json', 'form'], required: true }, response: RevokeWorkResult,
  }),
];
