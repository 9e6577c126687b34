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

/**
 * A database built on first use: a warm call served from the isolate cache makes no D1 round trip and so
 * builds no session and no drizzle instance (building one walks the whole schema).
 */
export function lazyDatabase(open: () => Database): Database {
  return new Proxy({} as Database, {
    get(_target, prop) {
      const real = open();
      const value = Reflect.get(real, prop, real) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
  });
}
