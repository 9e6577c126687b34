import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { newResourceId } from '@iris/shared';

/** A fresh database cloned from the migrated template; dropped by the returned `drop`. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `iris_test_${newResourceId(10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  await admin.end();
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A pool on a fresh database of the file's own, made before its tests and dropped after them (registers the
 * hooks); call the answer inside tests.
 */
export function testDatabasePool(max = 2): () => pg.Pool {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });
  return () => {
    if (!pool) throw new Error('the test database is made in beforeAll');
    return pool;
  };
}
