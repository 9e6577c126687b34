/**
 * A real pgvector database for tests, on one of two engines: a native PostgreSQL 15 with pgvector 0.8
 * (native-services.ts), or PGlite (PostgreSQL compiled to WebAssembly) with its `vector`
 * extension (pgvector 0.8), served over the PostgreSQL wire protocol on a free loopback port by
 * pglite-socket, so the backend's own `pg` client talks to it like to any PostgreSQL server.
 *
 * PGlite runs one query at a time. pglite-socket's server accepts several connections and queues their
 * queries; while one connection is inside a transaction, only that connection's queries run (the others wait
 * for its COMMIT). So clients may use a pool, as long as no code waits, inside a transaction, for a query of
 * another connection to the same server.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { nativeServices, nativeSkipNote, startNativePostgres } from './native-services.js';
import { waitUntil } from './wait-for.js';

export type PgVectorEngine = 'pglite' | 'native';

/**
 * The engines a pgvector suite runs on, for describe.each: both, or PGlite alone (with one printed line saying
 * why) where the native server cannot be installed.
 */
export function pgvectorEngines(): PgVectorEngine[] {
  const note = nativeSkipNote(nativeServices());
  if (note) console.warn(note);
  return note ? ['pglite'] : ['pglite', 'native'];
}

export interface PgVectorServer {
  /** postgres://… URL of the server (for IRIS_VECTOR_DATABASE_URL). */
  url: string;
  /** A pool on the server, closed with the server. */
  pool(max?: number): pg.Pool;
  close(): Promise<void>;
}

export async function startPgVectorServer(
  options: { maxConnections?: number; dataDir?: string; engine?: PgVectorEngine; /** Native server settings. */ settings?: string[] } = {},
): Promise<PgVectorServer> {
  if (options.engine === 'native') {
    const status = nativeServices();
    if (!status.available) throw new Error(nativeSkipNote(status)!);
    const server = await startNativePostgres(status.services, { settings: options.settings });
    return withPools(server.url, async () => {
      // Ended pools close their connections without waiting: a fast shutdown under them would error their clients.
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      const others = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
      await waitUntil(async () => (await admin.query<{ n: number }>(others)).rows[0]!.n, (n) => n === 0, 30_000).catch(() => {});
      await admin.end();
      await server.stop();
    });
  }
  const db = await PGlite.create(options.dataDir ?? 'memory://', { extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: options.maxConnections ?? 16 });
  await server.start();
  return withPools(`postgres://postgres:postgres@${server.getServerConn()}/postgres`, async () => {
    await server.stop();
    await db.close();
  });
}

function withPools(url: string, stop: () => Promise<void>): PgVectorServer {
  const pools: pg.Pool[] = [];
  return {
    url,
    pool: (max = 4) => {
      const pool = new pg.Pool({ connectionString: url, max });
      pools.push(pool);
      return pool;
    },
    close: async () => {
      for (const pool of pools.splice(0)) await pool.end();
      await stop();
    },
  };
}
