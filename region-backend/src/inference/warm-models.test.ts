import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferencePool, type WarmReport } from './inference-pool.js';
import { manifestStages, resolveManifest } from '../vision/runtime/model-config.js';
import { EMBEDDING_DIM } from '../vision/embedding/embedding-info.js';

describe('warmed inference threads', () => {
  it('load and run every model of the pack before their first job', async () => {
    const pool = new InferencePool(1, { lowPriorityThreads: 0, warmModels: true });
    try {
      const reports: WarmReport[] = [];
      pool.onWarmed = (report) => reports.push(report);
      // The first job waits for the thread to warm, so its report is in by the time the job answers.
      expect((await pool.run('ping', 7)).pong).toBe(7);
      const files = new Set(manifestStages().map((stage) => resolveManifest(stage).file));
      expect(reports).toEqual([{ models: files.size, ms: expect.any(Number) }]);
      expect(files.size).toBeGreaterThanOrEqual(9);
    } finally {
      await pool.close();
    }
  });

  it('a pool closed while a thread runs a model lets the call finish, then ends the thread', async () => {
    // Ending a thread in the middle of ONNX Runtime's native work can abort the whole process (as a backend
    // stopped on SIGTERM while its threads warmed did); closing waits for the call instead.
    const pool = new InferencePool(1, { lowPriorityThreads: 0 });
    const started = new Promise<void>((resolve) => {
      pool.observer = { started: () => resolve(), finished: () => {} };
    });
    const side = 96;
    const embedded = pool.run('embed', { rgb: { data: new Uint8Array(side * side * 3).fill(90), width: side, height: side } });
    await started;
    await pool.close();
    expect((await embedded).vector.length).toBe(EMBEDDING_DIM);
    await expect(pool.run('ping', 1)).rejects.toThrow(/closed/);
  });

  it('a pool closed while its thread converts the model pack ends the conversion at its next step', async () => {
    // A backend stopped on SIGTERM during its start-up conversion (a fresh model cache) aborted when the thread
    // was terminated in ONNX Runtime's native work; the thread now stops the conversion itself, between models.
    const cache = mkdtempSync(path.join(os.tmpdir(), 'iris-fresh-model-cache-'));
    const before = process.env.IRIS_MODEL_CACHE_DIR;
    process.env.IRIS_MODEL_CACHE_DIR = cache; // a thread takes the environment it is created with
    const pool = new InferencePool(1, { lowPriorityThreads: 0 });
    if (before === undefined) delete process.env.IRIS_MODEL_CACHE_DIR;
    else process.env.IRIS_MODEL_CACHE_DIR = before;
    try {
      const started = new Promise<void>((resolve) => {
        pool.observer = { started: () => resolve(), finished: () => {} };
      });
      const preparing = pool.run('prepare-models', undefined, { priority: 'background' });
      const ended = expect(preparing).rejects.toThrow(/thread is stopping/);
      await started;
      await pool.close();
      await ended;
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
