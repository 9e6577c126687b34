/**
 * The first connection to PostgreSQL at boot: retried while the server is unreachable (it may be starting,
 * as under systemd or compose), with one line per attempt, then a StartupError naming cause and fix.
 */
import type pg from 'pg';
import { StartupError, errorCode } from '../util/startup-error.js';

/** Connection errors worth waiting out: the server is down, starting, or the network is not up yet. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P03' /* the database system is starting up */]);

function where(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

export async function waitForDatabase(pool: pg.Pool, databaseUrl: string, options: { timeoutMs: number; log: (message: string) => void }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query('SELECT 1');
      return;
    } catch (err) {
      const code = errorCode(err);
      const reason = code ?? (err as Error).message;
      if (code === '28P01' || code === '28000') throw new StartupError(`PostgreSQL at ${where(databaseUrl)} refused the login (${(err as Error).message}): fix the user and password in DATABASE_URL`);
      if (code === '3D000') throw new StartupError(`PostgreSQL at ${where(databaseUrl)}: ${(err as Error).message}: create it (createdb) or fix the database name in DATABASE_URL`);
      if (code === 'ENOTFOUND') throw new StartupError(`PostgreSQL host of DATABASE_URL (${where(databaseUrl)}) does not resolve: fix the host name in DATABASE_URL`);
      if (!TRANSIENT.has(code ?? '') || Date.now() + delay > deadline) {
        throw new StartupError(`cannot reach PostgreSQL at ${where(databaseUrl)} (${reason}) after ${attempt} attempt(s) in ${Math.round(options.timeoutMs / 1000)} s: start PostgreSQL or fix DATABASE_URL (IRIS_DB_CONNECT_TIMEOUT_SECONDS sets how long to wait)`);
      }
      options.log(`PostgreSQL at ${where(databaseUrl)} is not reachable (${reason}); retrying in ${delay / 1000} s`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
