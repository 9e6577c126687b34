/**
 * Iris extension: access keys an account manages itself (`/iris/keys`), with scopes, expiry and rotation,
 * and the account's own settings (`/iris/account`: signatures required for every key). Served by the edge;
 * every call needs a key with the `admin-of-account` scope (docs/tenants.md, "Access keys").
 */
import { z } from 'zod';
import { KEY_SCOPES } from '../key-scopes.js';
import { op, pathParams, requestId, timestamp } from './common.js';

export const KeyScopeName = z.enum(KEY_SCOPES);

/** The longest a key may live, and the longest a rotated key keeps working beside its successor. */
export const MAX_KEY_LIFETIME_DAYS = 3660;
export const MAX_ROTATION_OVERLAP_DAYS = 30;
const DAY_MS = 86_400_000;

/** Printable text without control characters, trimmed. */
export const KeyName = z
  .string()
  .max(400)
  .transform((s) => s.trim())
  .pipe(z.string().min(1).max(100).regex(/^[^\p{Cc}\p{Cf}]+$/u, 'name: printable characters only'));
export const KeyScopes = z
  .array(KeyScopeName)
  .min(1)
  .max(KEY_SCOPES.length)
  .refine((list) => new Set(list).size === list.length, 'scopes: each scope once')
  .describe(`any of ${KEY_SCOPES.join(', ')}`);

/** A time in `%Y-%m-%dT%H:%M:%SZ` (or ISO 8601 with milliseconds), as epoch milliseconds. */
export const FutureTime = (maxDays: number) =>
  z
    .string()
    .max(40)
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, 'must be a UTC time like 2030-01-31T00:00:00Z')
    .transform((text, ctx) => {
      const ms = Date.parse(text);
      if (!Number.isFinite(ms)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'not a valid time' });
        return z.NEVER;
      }
      if (ms > Date.now() + maxDays * DAY_MS) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `at most ${maxDays} days from now` });
        return z.NEVER;
      }
      return ms;
    });

export const KeyIdText = z.string().regex(/^[A-Za-z0-9._~-]{4,128}$/, 'key_id: 4-128 characters of A-Z a-z 0-9 . _ ~ -');

export const CreateAccountKeyBody = z
  .object({
    name: KeyName.optional(),
    scopes: KeyScopes.optional().describe('default: every scope'),
    expires_at: FutureTime(MAX_KEY_LIFETIME_DAYS).optional().describe('default: never; a time in the past is refused'),
    signature_required: z.boolean().optional(),
    key_id: KeyIdText.optional().describe('default: generated; a key id that exists is refused (409), its secret never shown again'),
  })
  .strict();

export const UpdateAccountKeyBody = z
  .object({
    name: KeyName.nullable().optional(),
    scopes: KeyScopes.nullable().optional().describe('null: every scope'),
    expires_at: FutureTime(MAX_KEY_LIFETIME_DAYS).nullable().optional().describe('null: never'),
    enabled: z.boolean().optional(),
    signature_required: z.boolean().optional(),
  })
  .strict();

export const RotateKeyBody = z
  .object({
    old_key_valid_until: FutureTime(MAX_ROTATION_OVERLAP_DAYS)
      .optional()
      .describe(`until when the old key keeps working (at most ${MAX_ROTATION_OVERLAP_DAYS} days; default: now + 24 h; a past time ends it now)`),
  })
  .strict();

export const AccountKey = z.object({
  key_ref: z.string().describe('names the key in these routes and in the audit log (not a credential)'),
  key_id_hint: z.string().describe('first characters of the key id (only its hash is stored)'),
  key_id: z.string().optional().describe('only in the answer that created the key'),
  secret: z.string().optional().describe('only in the answer that created the key'),
  name: z.string().nullable(),
  enabled: z.boolean(),
  signature_required: z.boolean(),
  scopes: z.array(KeyScopeName).nullable().describe('null: every scope'),
  expires_at: timestamp.nullable(),
  expired: z.boolean(),
  rotated_from: z.string().nullable().describe('key_ref of the key this one replaced'),
  created_at: timestamp,
  current: z.boolean().describe('the key that made this call'),
});
export const AccountKeyAnswer = AccountKey.extend({ request_id: requestId });
export const RotatedKey = z.object({ request_id: requestId, key: AccountKey, previous: AccountKey });
export const AccountSettings = z.object({
  request_id: requestId,
  account_id: z.number().int(),
  signature_required: z.boolean().describe('every key of the account must sign its calls'),
});
export const AccountSettingsBody = z.object({ signature_required: z.boolean() }).strict();

const tag = 'Iris extensions';
const byRef = pathParams('key_ref');
const edge = { servedBy: 'edge', tag, extension: 'iris', errors: 'resource', errorCodes: ['badRequest', 'notFound', 'scopeForbidden'] } as const;
export const accountKeyOperations = [
  op({ ...edge, id: 'listAccountKeys', method: 'get', path: '/iris/keys', summary: "The account's access keys (never their ids or secrets)", response: z.object({ request_id: requestId, results: z.array(AccountKey) }) }),
  op({
    ...edge, id: 'createAccountKey', method: 'post', path: '/iris/keys', summary: 'Create an access key (201; its id and secret are in this answer only; 409 when a chosen key_id exists)',
    body: { schema: CreateAccountKeyBody, forms: ['json'] }, response: AccountKeyAnswer, status: 201,
  }),
  op({ ...edge, id: 'getAccountKey', method: 'get', path: '/iris/keys/{key_ref}', summary: 'One access key', params: byRef, response: AccountKeyAnswer }),
  op({
    ...edge, id: 'updateAccountKey', method: 'patch', path: '/iris/keys/{key_ref}', summary: 'Rename a key, change its scopes or expiry, enable or disable it, require signatures',
    params: byRef, body: { schema: UpdateAccountKeyBody, forms: ['json'], required: true }, response: AccountKeyAnswer,
  }),
  op({ ...edge, id: 'disableAccountKey', method: 'post', path: '/iris/keys/{key_ref}/disable', summary: 'Disable a key', params: byRef, response: AccountKeyAnswer }),
  op({ ...edge, id: 'enableAccountKey', method: 'post', path: '/iris/keys/{key_ref}/enable', summary: 'Enable a key', params: byRef, response: AccountKeyAnswer }),
  op({
    ...edge, id: 'rotateAccountKey', method: 'post', path: '/iris/keys/{key_ref}/rotate', summary: 'A new key (id and secret, shown once) with the same name, scopes and expiry; the old one works until old_key_valid_until',
    params: byRef, body: { schema: RotateKeyBody, forms: ['json'] }, response: RotatedKey, status: 201,
  }),
  op({ ...edge, id: 'deleteAccountKey', method: 'delete', path: '/iris/keys/{key_ref}', summary: 'Delete a key', params: byRef, response: null, status: 204 }),
  op({ ...edge, id: 'getAccountSettings', method: 'get', path: '/iris/account', summary: "The account's settings", response: AccountSettings }),
  op({
    ...edge, id: 'updateAccountSettings', method: 'put', path: '/iris/account', summary: 'Require signatures for every key of the account',
    body: { schema: AccountSettingsBody, forms: ['json'], required: true }, response: AccountSettings,
  }),
];

export const AdminAccountBody = z.object({ signature_required: z.boolean().optional() }).strict();
const accountId = z.object({ id: z.string().regex(/^\d+$/).describe('account id') });
export const adminAccountKeyOperations = [
  op({
    id: 'adminUpdateAccount', method: 'patch', path: '/admin/accounts/{id}', servedBy: 'edge', tag: 'Admin', extension: 'iris', errors: 'resource', admin: true,
    summary: 'Require signatures for every key of the account', params: accountId, body: { schema: AdminAccountBody, forms: ['json'], required: true },
    response: z.object({ id: z.number().int(), name: z.string(), disabled: z.boolean(), signature_required: z.boolean(), created_at: timestamp }),
  }),
  op({
    id: 'adminDeleteKey', method: 'delete', path: '/admin/keys/{key_id}', servedBy: 'edge', tag: 'Admin', extension: 'iris', errors: 'resource', admin: true,
    summary: 'Delete an access key', params: z.object({ key_id: z.string().min(1).max(128) }), response: null, status: 204,
  }),
];
