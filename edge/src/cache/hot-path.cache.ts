/**
 * What the warm hot path reads from the isolate instead of D1 (docs/edge.md, "Hot path and caching"):
 * access keys with their account state and quotas, each account's explicit grants, and live registry rows.
 * Unknown key ids are remembered briefly (`EDGE_UNKNOWN_KEY_TTL_MS`, bounded count) so that a repeated unknown
 * key costs no D1 round trip; a key created through this isolate is forgotten there at once, one created
 * elsewhere works within that TTL. Unknown resource ids and pending rows are never cached;
 * a disabled key or account, a revoked grant or a deleted resource takes effect at once in the isolate that
 * made the change and within the TTL everywhere else.
 */
import type { AuthKey } from '../accounts/key-store.service.js';
import type { Resource } from '../db/schema.js';
import { clearAccountBookmarks } from './account-bookmarks.cache.js';
import { IsolateCache } from './isolate-cache.js';

export const DEFAULT_CACHE_TTL_MS = 5_000;

export const keyCache = new IsolateCache<AuthKey>({ maxEntries: 10_000 });
export const grantCache = new IsolateCache<ReadonlyMap<string, boolean>>({ maxEntries: 10_000 });
export const unknownKeyCache = new IsolateCache<true>({ maxEntries: 10_000 });
export const resourceCache = new IsolateCache<Resource>({ maxEntries: 50_000 });

export function forgetKey(keyId: string): void {
  keyCache.delete(keyId);
  unknownKeyCache.delete(keyId);
}

/** A key changed through a route that names it by reference (its id is not stored): found by hash. */
export function forgetKeyHash(keyHash: string): void {
  keyCache.deleteWhere((_, value) => value.keyHash === keyHash);
}

/** Account state, quotas or grants changed: every cached key of the account and its grants go. */
export function forgetAccount(accountId: number): void {
  keyCache.deleteWhere((_, value) => value.accountId === accountId);
  grantCache.delete(String(accountId));
}

export function forgetResources(ids: Iterable<string>): void {
  for (const id of ids) resourceCache.delete(id);
}

/** Tests only: start from a cold isolate. */
export function clearHotPathCaches(): void {
  keyCache.clear();
  unknownKeyCache.clear();
  grantCache.clear();
  resourceCache.clear();
  clearAccountBookmarks();
}
