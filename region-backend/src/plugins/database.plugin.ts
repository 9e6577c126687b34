import fp from 'fastify-plugin';
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from '../db/migrate.js';

export interface Database {
  pool: pg.Pool;
  orm: NodePgDatabase;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
  }
}

// bigint (int8) columns come back as strings by default; ids and counts here stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export const databasePlugin = fp(
  async (app, opts: { databaseUrl: string; poolSize?: number }) => {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 20 });
    pool.on('error', (err) => app.log.error({ err }, 'idle PostgreSQL client failed'));
    const applied = await migrate(pool);
    if (applied.length) app.log.info({ applied }, 'database migrations applied');
    app.decorate('db', { pool, orm: drizzle(pool) });
    app.addHook('onClose', async () => {
      await pool.end();
    });
  },
  { name: 'database' },
);
