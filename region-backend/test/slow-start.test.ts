/**
 * A start-up slower than Fastify's default 10 s plugin timeout (a loaded host, a restarted process among others
 * starting) still completes: the process must not exit and restart into the same load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createTestDatabase } from './support/test-database.js';
import { TEST_SECRET } from './support/test-app.js';

describe('backend start-up', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iris-slow-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('waits for an onReady hook that takes longer than 10 s', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({ ...process.env, DATABASE_URL: database.url, INTERNAL_SECRET: TEST_SECRET, IRIS_DATA_DIR: dataDir, IRIS_METRICS_PORT: 'off', IRIS_WATCHDOG_MS: '0', IRIS_INFERENCE_THREADS: '1' });
    const app = await buildApp(config, { workers: false, logger: false });
    try {
      let finished = false;
      // The slow work itself (a start-up step on a loaded host), not a wait for state.
      app.addHook('onReady', async () => {
        await new Promise((resolve) => setTimeout(resolve, 10_500));
        finished = true;
      });
      await app.ready();
      expect(finished).toBe(true);
    } finally {
      await app.close();
      await database.drop();
    }
  }, 180_000);
});
