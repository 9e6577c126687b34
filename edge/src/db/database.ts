import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema.js';

/** The drizzle view over a D1 binding or a D1 session (both offer `prepare` and `batch`). */
export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database | D1DatabaseSession };

/** D1 round trips made by one call (a batch counts once): reported by the edge-overhead benchmark. */
export interface D1Counter {
  roundTrips: number;
}

const cache = new WeakMap<D1Database, Database>();

/** One drizzle wrapper per D1 binding (admin API and tests: reads and writes on the primary). */
export function database(d1: D1Database): Database {
  let db = cache.get(d1);
  if (!db) {
    db = drizzle(d1, { schema }) as Database;
    cache.set(d1, db);
  }
  return db;
}

const unwrapped = new WeakMap<object, D1PreparedStatement>();

function countedStatement(statement: D1PreparedStatement, counter: D1Counter): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, prop) {
      if (prop === 'bind') return (...values: unknown[]) => countedStatement(target.bind(...values), counter);
      if (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw') {
        return (...args: unknown[]) => {
          counter.roundTrips++;
          return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  unwrapped.set(proxy, statement);
  return proxy;
}

/** A D1 session that counts its round trips. */
function countedSession(session: D1DatabaseSession, counter: D1Counter): D1DatabaseSession {
  return {
    prepare: (query: string) => countedStatement(session.prepare(query), counter),
    batch: <T>(statements: D1PreparedStatement[]) => {
      counter.roundTrips++;
      return session.batch<T>(statements.map((s) => unwrapped.get(s) ?? s));
    },
    getBookmark: () => session.getBookmark(),
  } as D1DatabaseSession;
}

/**
 * The database of one public API call: a D1 session (Sessions API: reads may be served by a nearby read
 * replica, writes always go to the primary, and the call sees its own writes), counted. Opened on first
 * use: a warm call served from the isolate cache makes no D1 round trip and so builds no session and no
 * drizzle instance (building one walks the whole schema).
 */
export function sessionDatabase(d1: D1Database, counter: D1Counter): Database {
  let db: Database | undefined;
  const open = (): Database => {
    if (!db) {
      const session = typeof d1.withSession === 'function' ? d1.withSession('first-unconstrained') : (d1 as unknown as D1DatabaseSession);
      db = drizzle(countedSession(session, counter) as unknown as D1Database, { schema }) as Database;
    }
    return db;
  };
  return new Proxy({} as Database, {
    get(_target, prop) {
      const real = open();
      const value = Reflect.get(real, prop, real) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
  });
}
