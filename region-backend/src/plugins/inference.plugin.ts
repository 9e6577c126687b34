import fp from 'fastify-plugin';
import { InferencePool, type PoolLimits } from '../inference/inference-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    inference: InferencePool;
  }
}

/** The worker-thread pool that runs all model code; closed after in-flight HTTP work has finished. */
export const inferencePlugin = fp(
  async (app, opts: { threads: number; limits?: Partial<PoolLimits> }) => {
    const pool = new InferencePool(opts.threads, opts.limits);
    app.decorate('inference', pool);
    app.addHook('onClose', async () => {
      await pool.close();
    });
  },
  { name: 'inference' },
);
