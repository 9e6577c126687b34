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

export type PgVectorEngine = 'pglite' | 'native';

/**
 * The engines a pgvector suite runs on, for describe.each: both, the native one skipped (with one printed line
 * saying why) where it cannot be installed.
 */
export function pgvectorEngines(): { engine: PgVectorEngine; skip: boolean }[] {
  const note = nativeSkipNote(nativeServices());
  if (note) console.warn(note);
  return [
    { engine: 'pglite', skip: false },
    { engine: 'native', skip: note !== null },
  ];
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
    return withPools(server.url, () => server.stop());
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
