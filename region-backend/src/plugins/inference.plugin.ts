import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { FIRST_TIER_BOOST, InferencePool, type PoolLimits } from '../inference/inference-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    inference: InferencePool;
  }
}

/**
 * Says once, after the threads have started, when the first tier could not be raised as configured: the
 * process lacks CAP_SYS_NICE or a high enough RLIMIT_NICE (deploy/README.md).
 */
function warnWhenNotRaised(app: FastifyInstance, pool: InferencePool, boost: number): void {
  let tries = 0;
  const check = () => {
    const { first } = pool.tierNice();
    if (first === null) {
      if (++tries < 600) setTimeout(check, 200).unref(); // threads that warm their models first report later
      return;
    }
    // With one tier (no low-priority threads) nothing is raised.
    if (pool.threads > pool.size && first > -boost) {
      app.log.warn(
        { requested: -boost, reached: first },
        'first-tier inference threads could not be raised above the process as configured: grant CAP_SYS_NICE or LimitNICE (deploy/README.md) so single calls keep their speed beside another account\'s flood',
      );
    }
  };
  setTimeout(check, 200).unref();
}

/** The worker-thread pool that runs all model code; closed after in-flight HTTP work has finished. */
export const inferencePlugin = fp(
  async (app, opts: { threads: number; limits?: Partial<PoolLimits>; warmModels?: boolean }) => {
    const pool = new InferencePool(opts.threads, { ...opts.limits, warmModels: opts.warmModels ?? false });
    pool.onWarmed = (report) => {
      if ('error' in report) app.log.warn({ err: report.error }, 'an inference thread could not warm its models: each loads on first use');
      else app.log.info(report, 'inference thread warmed its models');
    };
    app.decorate('inference', pool);
    warnWhenNotRaised(app, pool, opts.limits?.firstTierBoost ?? FIRST_TIER_BOOST);
    app.addHook('onClose', async () => {
      await pool.close();
    });
  },
  { name: 'inference' },
);
