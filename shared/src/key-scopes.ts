/** What an access key may do (docs/tenants.md, "Scopes"); a key without a scope list may do everything. */
export const KEY_SCOPES = ['read', 'data', 'search', 'analysis', 'batch', 'admin-of-account'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
