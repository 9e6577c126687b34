/**
 * The latest D1 bookmark of each account's own writes (registry changes) made through this isolate: the
 * account's next calls here open their D1 session at it, so they read what it wrote even from a replica
 * (docs/edge.md, "Read-your-writes"). Writes made through other isolates are caught by reading the primary
 * when a replica has not seen them (`CallSession.retryOnPrimary`). A bookmark older than any replica's lag
 * is harmless, so entries simply expire; the count is bounded.
 */
import { laterBookmark } from '../db/call-session.js';
import { IsolateCache } from './isolate-cache.js';

/** Far beyond any replica lag: afterwards every replica has the write and the bookmark constrains nothing. */
export const BOOKMARK_TTL_MS = 5 * 60_000;

const bookmarks = new IsolateCache<string>({ maxEntries: 10_000 });

export function accountBookmark(accountId: number): string | undefined {
  return bookmarks.peek(String(accountId));
}

/** Keeps the later of the stored bookmark and `bookmark` (calls of one account may end out of order). */
export function rememberAccountBookmark(accountId: number, bookmark: string | null): void {
  if (!bookmark) return;
  const key = String(accountId);
  bookmarks.set(key, laterBookmark(bookmarks.peek(key), bookmark)!, BOOKMARK_TTL_MS);
}

/** Tests only: an isolate that has seen no write. */
export function clearAccountBookmarks(): void {
  bookmarks.clear();
}
