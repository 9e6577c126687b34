/**
 * This process as an instance of the region: the lease `instance:<id>` in PostgreSQL, renewed while the
 * process lives, and the sweep of upload folders left in the shared store by instances whose lease expired
 * (http/upload-sweep.ts), then their leases once long expired. Every process sweeps now and then; removing a
 * folder twice is harmless.
 */
import { mkdir, rm } from 'node:fs/promises';
import fp from 'fastify-plugin';
import { sweepUploadDirs } from '../http/upload-sweep.js';
import { forgetExpiredLeases, liveLeases, LeaseKeeper } from '../jobs/lease.js';
import { PeriodicTask } from '../jobs/periodic-task.js';

/** Time to live of an instance lease; renewed every third of it. */
export const INSTANCE_TTL_MS = 60_000;
const SWEEP_EVERY_MS = 10 * 60_000;
const PREFIX = 'instance:';

export const instancePlugin = fp(
  async (app, opts: { instanceId: string; tmpDir: string; uploadDir: string; ttlMs?: number }) => {
    const ttlMs = opts.ttlMs ?? INSTANCE_TTL_MS;
    const lease = new LeaseKeeper({ pool: app.db.pool, name: `${PREFIX}${opts.instanceId}`, holder: opts.instanceId, ttlMs, log: app.log });
    lease.start();
    await lease.ready;
    if (!lease.held) throw new Error(`could not take the lease of instance ${opts.instanceId} in PostgreSQL`);
    await mkdir(opts.uploadDir, { recursive: true });
    const sweep = new PeriodicTask({
      name: 'upload folder sweep',
      intervalMs: SWEEP_EVERY_MS,
      log: app.log,
      run: async () => {
        const live = await liveLeases(app.db.pool, PREFIX);
        const removed = await sweepUploadDirs(opts.tmpDir, { isLive: (id) => live.has(`${PREFIX}${id}`), graceMs: ttlMs });
        if (removed) app.log.info({ removed }, 'removed upload folders left by stopped processes');
        // The leases of processes killed long ago (their folders went with an earlier sweep).
        await forgetExpiredLeases(app.db.pool, PREFIX, SWEEP_EVERY_MS * 3);
      },
    });
    sweep.start();
    app.addHook('onClose', async () => {
      await sweep.stop();
      await lease.stop();
      await rm(opts.uploadDir, { recursive: true, force: true });
    });
  },
  { name: 'instance', dependencies: ['database'] },
);
