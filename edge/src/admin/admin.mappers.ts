/** Admin API response bodies. */
import { QUOTA_FIELDS, formatTime, type Quotas } from '@iris/shared';
import type { AccessKey, Account } from '../db/schema.js';

export function accountJson(account: Account) {
  return { id: account.id, name: account.name, disabled: account.disabled, created_at: formatTime(account.createdAt) };
}

export function keyJson(key: AccessKey, withSecret = false) {
  return {
    key_id: key.keyId,
    account_id: key.accountId,
    enabled: key.enabled,
    signature_required: key.signatureRequired,
    created_at: formatTime(key.createdAt),
    ...(withSecret ? { secret: key.secret } : {}),
  };
}

export function quotasJson(quotas: Quotas): Record<string, number> {
  return Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, quotas[f.key]]));
}
