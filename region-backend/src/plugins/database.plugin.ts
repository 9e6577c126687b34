import fp from 'fastify-plugin';
import pg from 'pg';
import { waitForDatabase } from '../db/connect.js';
import { migrate } from '../db/migrate.js';

export interface Database {
  pool: pg.Pool;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
  }
}

// bigint (int8) columns come back as strings by default; ids and counts here stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export const databasePlugin = fp(
  async (app, opts: { databaseUrl: string; poolSize?: number; connectTimeoutMs?: number }) => {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 20 });
    pool.on('error', (err) => app.log.error({ err }, 'idle PostgreSQL client failed'));
    try {
      await waitForDatabase(pool, opts.databaseUrl, { timeoutMs: opts.connectTimeoutMs ?? 30_000, log: (message) => app.log.warn(message) });
    } catch (err) {
      await pool.end();
      throw err;
    }
    const applied = await migrate(pool);
    if (applied.length) app.log.info({ applied }, 'database migrations applied');
    app.decorate('db', { pool });
    app.addHook('onClose', async () => {
      await pool.end();
    });
  },
  { name: 'database' },
);
