/**
 * A real pgvector database for tests: PGlite (PostgreSQL compiled to WebAssembly) with its `vector`
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

export interface PgVectorServer {
  /** postgres://… URL of the server (for IRIS_VECTOR_DATABASE_URL). */
  url: string;
  /** A pool on the server, closed with the server. */
  pool(max?: number): pg.Pool;
  close(): Promise<void>;
}

export async function startPgVectorServer(options: { maxConnections?: number; dataDir?: string } = {}): Promise<PgVectorServer> {
  const db = await PGlite.create(options.dataDir ?? 'memory://', { extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: options.maxConnections ?? 16 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
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
      await server.stop();
      await db.close();
    },
  };
}
