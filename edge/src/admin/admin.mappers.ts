/** Admin API response bodies. */
import { QUOTA_FIELDS, formatTime, formatTimeOrNull, type Quotas } from '@iris/shared';
import { parseScopes } from '../accounts/key-store.service.js';
import type { AccessKey, Account } from '../db/schema.js';

export function accountJson(account: Account) {
  return { id: account.id, name: account.name, disabled: account.disabled, signature_required: account.signatureRequired, created_at: formatTime(account.createdAt) };
}

/**
 * A key as the admin API shows it. The id is not stored (only its hash): it is shown when the caller gave
 * it (by-id routes, creates), else its first characters as `key_id_hint`; the secret only on creation.
 */
export function keyJson(key: AccessKey, known: { keyId?: string; secret?: string } = {}) {
  return {
    ...(known.keyId !== undefined ? { key_id: known.keyId } : {}),
    key_id_hint: key.keyHint,
    key_ref: key.keyRef,
    name: key.name,
    scopes: parseScopes(key.scopes),
    expires_at: formatTimeOrNull(key.expiresAt),
    account_id: key.accountId,
    enabled: key.enabled,
    signature_required: key.signatureRequired,
    created_at: formatTime(key.createdAt),
    ...(known.secret !== undefined ? { secret: known.secret } : {}),
  };
}

export function quotasJson(quotas: Quotas): Record<string, number> {
  return Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, quotas[f.key]]));
}
