import { describe, expect, it } from 'vitest';
import { InferencePool, type WarmReport } from './inference-pool.js';
import { manifestStages, resolveManifest } from '../vision/runtime/model-config.js';

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
});
