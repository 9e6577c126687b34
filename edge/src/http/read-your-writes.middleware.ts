/**
 * Read-your-writes across calls (docs/edge.md, "Read-your-writes"): once the caller's account is known,
 * the call's D1 session follows the bookmark of the account's latest write made through this isolate; when
 * the call itself changed the account's registry rows, its bookmark becomes that latest write, whether the
 * call then succeeded or failed. Calls of accounts that wrote nothing here stay `first-unconstrained`.
 */
import type { MiddlewareHandler } from 'hono';
import { accountBookmark, rememberAccountBookmark } from '../cache/account-bookmarks.cache.js';
import type { AppEnv } from '../env.js';

export function readYourWrites(): MiddlewareHandler<AppEnv> {
  return async function readYourWrites(c, next) {
    const session = c.get('session');
    const accountId = c.get('credential').accountId;
    session.follow(accountBookmark(accountId));
    try {
      await next();
    } finally {
      if (session.ownWrite) rememberAccountBookmark(accountId, session.bookmark());
    }
  };
}
