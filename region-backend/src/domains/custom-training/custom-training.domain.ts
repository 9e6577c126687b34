/**
 * Custom training as a domain: services and inference routes, the training job type, the supervisor that
 * resumes interrupted training, and the "in use" check of training sets (a set with a live service cannot
 * be deleted or cleared, nor lose data).
 */
import fp from 'fastify-plugin';
import { defineJob } from '../../jobs/job-registry.js';
import { registerSetUsageCheck } from '../data-sets/set-usage.js';
import type { Domain } from '../domain.js';
import { ClassifierInference } from './classifier-inference.js';
import { setHasLiveService } from './custom-service.repo.js';
import { CustomServiceService } from './custom-service.service.js';
import { customTrainingRoutes } from './custom-training.routes.js';
import { TRAIN_JOB, TrainingRunner, type TrainJobData } from './training-run.js';
import { TrainingSupervisor } from './training-supervisor.js';

declare module 'fastify' {
  interface FastifyInstance {
    trainingRunner: TrainingRunner;
  }
}

const routes = fp(
  async (app) => {
    const config = app.config.training;
    const log = app.log.child({ domain: 'custom-training' });
    const runner = new TrainingRunner({
      pool: app.db.pool,
      blobs: app.blobs,
      inference: app.inference,
      queue: app.queue,
      enqueueDownloads: (setId) => app.downloads.enqueue(setId),
      log,
      config,
    });
    const supervisor = new TrainingSupervisor({ pool: app.db.pool, runner, log, intervalMs: config.pollMs });
    app.decorate('trainingRunner', runner);

    const unregister = registerSetUsageCheck((setId) => setHasLiveService(app.db.pool, setId));
    app.addHook('onReady', async () => supervisor.start());
    app.addHook('preClose', async () => {
      runner.stop();
      await supervisor.stop();
    });
    app.addHook('onClose', async () => unregister());

    await app.register(
      customTrainingRoutes({
        services: new CustomServiceService({ pool: app.db.pool, runner, log }),
        inference: new ClassifierInference({ pool: app.db.pool, inference: app.inference, decoder: app.decoder }),
        defaultTopk: config.defaultTopk,
      }),
    );
  },
  { name: 'custom-training', dependencies: ['database', 'queue', 'inference', 'blob-store', 'downloads'] },
);

export const customTrainingDomain: Domain = {
  name: 'custom-training',
  routes,
  jobs: (app) => [
    defineJob<TrainJobData>({
      name: TRAIN_JOB,
      concurrency: app.config.training.jobs,
      // 'short': at most one queued job per service (singletonKey); runs are serialised by an advisory lock.
      queue: { policy: 'short', retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 60 * 60 },
      handler: async (data) => {
        await app.trainingRunner.run(data.serviceId);
      },
    }),
  ],
};
