/**
 * What a crash test needs around its backend processes: a fresh database (with a pool to inspect it), a data
 * directory shared by the processes, and child backends that are all killed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startChildBackend, type ChildBackend } from '../data-sets/child-backend.js';
import { createTestDatabase } from './test-database.js';

export interface CrashHarness {
  databaseUrl: string;
  dataDir: string;
  /** For assertions on stored state. */
  pool: pg.Pool;
  /** A backend process on the shared database and data directory. */
  startBackend(env?: Record<string, string>): Promise<ChildBackend>;
  /** Kills every backend started, then removes the database and the data directory. */
  close(): Promise<void>;
}

export async function startCrashHarness(name: string): Promise<CrashHarness> {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the database terminates its connections: one still closing must not fail the run.
  pool.on('error', () => {});
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `iris-${name}-`));
  const children: ChildBackend[] = [];
  return {
    databaseUrl: database.url,
    dataDir,
    pool,
    async startBackend(env = {}) {
      const child = await startChildBackend({ databaseUrl: database.url, dataDir, env });
      children.push(child);
      return child;
    },
    async close() {
      for (const child of children) await child.kill('SIGKILL');
      await pool.end();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
