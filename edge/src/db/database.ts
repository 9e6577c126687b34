import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema.js';

export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database };

const cache = new WeakMap<D1Database, Database>();

/** One drizzle wrapper per D1 binding. */
export function database(d1: D1Database): Database {
  let db = cache.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    cache.set(d1, db);
  }
  return db;
}
