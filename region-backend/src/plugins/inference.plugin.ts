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
    // Convert the TFJS models of the pack to ONNX (or hash-check the cached conversions) once per start, in
    // a worker thread; a request that comes first converts what it needs itself.
    pool
      .run('prepare-models', undefined, { priority: 'background' })
      .then((models) => app.log.info({ converted: models.filter((m) => m.converted).length, cached: models.filter((m) => !m.converted).length }, 'ONNX model cache ready'))
      .catch((err: unknown) => app.log.error({ err }, 'converting models to ONNX failed'));
    app.addHook('onClose', async () => {
      await pool.close();
    });
  },
  { name: 'inference' },
);
