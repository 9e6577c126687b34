/** Drizzle view of the D1 tables created by edge/migrations (the SQL files are the source of truth). */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { RESOURCE_KINDS } from '@iris/shared';

export const RESOURCE_STATES = ['pending', 'live', 'deleted'] as const;
export type ResourceState = (typeof RESOURCE_STATES)[number];

export const accounts = sqliteTable('accounts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
  createdAt: integer('created_at').notNull(),
  /** Every key of the account must sign its calls (migrations/0004_account_keys.sql). */
  signatureRequired: integer('signature_required', { mode: 'boolean' }).notNull().default(false),
});

/** Access keys by the SHA-256 of their id; secrets AES-GCM encrypted (migrations/0002_secrets_at_rest.sql). */
export const accessKeys = sqliteTable(
  'access_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    keyHint: text('key_hint').notNull(),
    secretEnc: text('secret_enc').notNull(),
    accountId: integer('account_id').notNull().references(() => accounts.id),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    signatureRequired: integer('signature_required', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    /** Public name of the key for listings and the /iris/keys routes (0004; set on every row). */
    keyRef: text('key_ref'),
    name: text('name'),
    /** Comma-separated scopes; NULL = every scope. */
    scopes: text('scopes'),
    expiresAt: integer('expires_at'),
    rotatedFrom: text('rotated_from'),
  },
  (t) => [index('access_keys_account').on(t.accountId), uniqueIndex('access_keys_ref').on(t.keyRef)],
);

/** Keys stored before 0002 (plain id and secret), converted one by one by the edge. */
export const legacyAccessKeys = sqliteTable(
  'legacy_access_keys',
  {
    keyId: text('key_id').primaryKey(),
    secret: text('secret').notNull(),
    accountId: integer('account_id').notNull().references(() => accounts.id),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    signatureRequired: integer('signature_required', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('legacy_access_keys_account').on(t.accountId)],
);

export const accountQuotas = sqliteTable('account_quotas', {
  accountId: integer('account_id').primaryKey().references(() => accounts.id),
  imageSets: integer('image_sets'),
  trainingSets: integer('training_sets'),
  customServices: integer('custom_services'),
  dailyBatchTasks: integer('daily_batch_tasks'),
  productSets: integer('product_sets'),
  searchServices: integer('search_services'),
  searchServicesPerSet: integer('search_services_per_set'),
  recordsPerSet: integer('records_per_set'),
  records: integer('records'),
  storedBytes: integer('stored_bytes'),
  dailyBadCases: integer('daily_bad_cases'),
  updatedAt: integer('updated_at').notNull(),
});

export const serviceGrants = sqliteTable(
  'service_grants',
  {
    accountId: integer('account_id').notNull().references(() => accounts.id),
    serviceId: text('service_id').notNull(),
    granted: integer('granted', { mode: 'boolean' }).notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.serviceId] })],
);

export const resources = sqliteTable(
  'resources',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: RESOURCE_KINDS }).notNull(),
    accountId: integer('account_id').notNull().references(() => accounts.id),
    region: text('region').notNull(),
    state: text('state', { enum: RESOURCE_STATES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('resources_account_kind_state').on(t.accountId, t.kind, t.state)],
);

export const signatureNonces = sqliteTable(
  'signature_nonces',
  {
    keyId: text('key_id').notNull(),
    nonce: text('nonce').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.nonce] }), index('signature_nonces_expiry').on(t.expiresAt)],
);

/** Admin actions, key changes and deletes (migrations/0004_account_keys.sql). */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    accountId: integer('account_id'),
    actor: text('actor', { enum: ['key', 'operator'] }).notNull(),
    keyRef: text('key_ref'),
    requestId: text('request_id').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    targetId: text('target_id'),
    status: integer('status').notNull(),
    outcome: text('outcome', { enum: ['ok', 'refused', 'failed'] }).notNull(),
    detail: text('detail'),
  },
  (t) => [index('audit_log_account').on(t.accountId, t.id), index('audit_log_at').on(t.at)],
);

export type Account = typeof accounts.$inferSelect;
export type AccessKey = typeof accessKeys.$inferSelect;
export type LegacyAccessKey = typeof legacyAccessKeys.$inferSelect;
export type Resource = typeof resources.$inferSelect;
export type AuditEntry = typeof auditLog.$inferSelect;
