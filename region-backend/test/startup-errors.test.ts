/**
 * A backend that cannot start says why in one line on stderr (cause and fix), with no stack trace, and exits 1;
 * an unreachable PostgreSQL is retried, with a line per attempt, before that.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/db/embedded-postgres.js';
import { serverEntryArgs } from '../src/util/backend-build.js';
import { createTestDatabase } from './support/test-database.js';

const BACKEND_DIR = path.resolve(import.meta.dirname, '..');

function runBackend(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, serverEntryArgs(), {
      cwd: BACKEND_DIR,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, IRIS_REGION: 'cn-east', HOST: '127.0.0.1', INTERNAL_SECRET: 'startup-errors-secret-0123456789', IRIS_INFERENCE_THREADS: '1', LOG_LEVEL: 'warn', IRIS_DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let dataDir: string;
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-startup-errors-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('backend start-up failures', () => {
  it('retries an unreachable PostgreSQL with a message per attempt, then fails in one line', async () => {
    const port = await freePort();
    const run = await runBackend({ DATABASE_URL: `postgres://iris:pw@127.0.0.1:${port}/iris`, IRIS_DB_CONNECT_TIMEOUT_SECONDS: '2', PORT: String(await freePort()) });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port}/iris is not reachable \\(ECONNREFUSED\\); retrying`));
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^iris backend cn-east: cannot start: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/iris \\(ECONNREFUSED\\) after \\d+ attempt\\(s\\) in 2 s: start PostgreSQL or fix DATABASE_URL`)),
    ]);
    expect(run.stdout + run.stderr).not.toMatch(/^\s+at /m);
  });

  it('names a wrong password at once, without retrying', async () => {
    const wrong = new URL(database.url);
    wrong.password = 'not-the-password';
    const run = await runBackend({ DATABASE_URL: wrong.toString(), PORT: String(await freePort()) });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(/retrying/);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^iris backend cn-east: cannot start: PostgreSQL at .* refused the login .*: fix the user and password in DATABASE_URL$/)]);
  });

  it('names each bad variable', async () => {
    const run = await runBackend({ DATABASE_URL: 'not a url', INTERNAL_SECRET: 'short', PORT: '99999' });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^iris backend cn-east: cannot start: invalid backend configuration: /);
    for (const name of ['DATABASE_URL', 'INTERNAL_SECRET', 'PORT']) expect(lines[0]).toContain(name);
  });

  it('says which port is in use', async () => {
    const holder = net.createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as net.AddressInfo).port)));
    try {
      const run = await runBackend({ DATABASE_URL: database.url, PORT: String(port) });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([`iris backend cn-east: cannot start: port 127.0.0.1:${port} is already in use: stop the program holding it or set PORT to a free port`]);
    } finally {
      holder.close();
    }
  });
});
