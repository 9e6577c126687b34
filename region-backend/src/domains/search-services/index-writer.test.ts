/**
 * The index writer claim is a PostgreSQL lease keyed by the cache directory's identity: exclusive between the
 * processes that share the directory, and taken over once a holder killed without warning stops renewing it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabasePool } from '../../../test/support/test-database.js';
import { waitUntil } from '../../../test/support/wait-for.js';
import { IndexWriterClaim } from './index-writer.js';

const SCRIPT = fileURLToPath(new URL('../../../test/support/index-writer-script.ts', import.meta.url));
const TTL_MS = 1500;

describe('index writer claim', () => {
  const pool = testDatabasePool(4);
  const root = mkdtempSync(path.join(os.tmpdir(), 'iris-writer-'));
  const log = Fastify({ logger: false }).log;
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });
  const claim = (dir: string) => new IndexWriterClaim({ pool: pool(), indexesDir: dir, holder: randomUUID(), log, ttlMs: TTL_MS });

  it('is held by one of the processes sharing a directory, whatever path each reaches it by; each directory has its own', async () => {
    const dir = path.join(root, 'shared', 'indexes');
    const [a, b, other] = [claim(dir), claim(path.join(root, 'shared', '.', 'indexes')), claim(path.join(root, 'other', 'indexes'))];
    const held = await Promise.all([a.held(), b.held()]);
    expect(held.filter(Boolean)).toHaveLength(1);
    expect(await other.held()).toBe(true);
    // The holder gives it back when it closes: the other takes it at its next renewal round.
    const [holder, waiting] = held[0] ? [a, b] : [b, a];
    await holder.release();
    await waitUntil(() => waiting.held(), (h) => h, 30_000);
    await waiting.release();
    await other.release();
  });

  it('passes to another process once its holder, killed with SIGKILL, stops renewing it', async () => {
    const dir = path.join(root, 'killed', 'indexes');
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, pool().options.connectionString!, dir, String(TTL_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const first = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the holder exited with code ${code}`)));
      createInterface({ input: child.stdout! }).once('line', resolve);
    });
    expect(first).toBe('held');
    const mine = claim(dir);
    expect(await mine.held()).toBe(false);
    // Still renewed while the holder lives (several times its time to live).
    const until = Date.now() + 3 * TTL_MS;
    await waitUntil(() => mine.held(), (h) => h || Date.now() > until, 30_000);
    expect(await mine.held()).toBe(false);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await waitUntil(() => mine.held(), (h) => h, 30_000);
    await mine.release();
  });
});
