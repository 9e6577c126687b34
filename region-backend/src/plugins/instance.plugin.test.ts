/**
 * A process's instance lease and the upload sweep, on a real PostgreSQL: the folder of an instance whose lease is
 * gone is removed by another process, a live instance's folder stays, and a process that stops gives its lease
 * back and removes its own folder.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabasePool } from '../../test/support/test-database.js';
import { waitUntil } from '../../test/support/wait-for.js';
import { databasePlugin } from './database.plugin.js';
import { instancePlugin } from './instance.plugin.js';

describe('instance lease and upload sweep', () => {
  const pool = testDatabasePool();
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'iris-instance-'));
  afterAll(() => rmSync(tmpDir, { recursive: true, force: true }));

  it('removes the uploads of instances whose lease is gone, keeps live ones, and gives its own lease back at close', async () => {
    const [dead, live, me] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [dead, live]) mkdirSync(path.join(tmpDir, id, 'upload-a'), { recursive: true });
    const old = (Date.now() - 10 * 60_000) / 1000;
    utimesSync(path.join(tmpDir, dead), old, old);
    await pool().query(`INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [`instance:${live}`, live]);

    const app = Fastify({ logger: false });
    await app.register(databasePlugin, { databaseUrl: pool().options.connectionString! });
    await app.register(instancePlugin, { instanceId: me, tmpDir, uploadDir: path.join(tmpDir, me), ttlMs: 3000 });
    await app.ready();
    try {
      await waitUntil(async () => existsSync(path.join(tmpDir, dead)), (there) => !there, 30_000);
      expect([live, me].map((id) => existsSync(path.join(tmpDir, id)))).toEqual([true, true]);
      const held = await pool().query('SELECT holder FROM leases WHERE name = $1 AND expires_at > now()', [`instance:${me}`]);
      expect(held.rows).toEqual([{ holder: me }]);
    } finally {
      await app.close();
    }
    expect((await pool().query('SELECT 1 FROM leases WHERE name = $1', [`instance:${me}`])).rowCount).toBe(0);
    expect(existsSync(path.join(tmpDir, me))).toBe(false);
  });
});
