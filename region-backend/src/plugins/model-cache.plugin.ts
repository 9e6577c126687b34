/**
 * Converts the pack's TFJS models to ONNX (and quantises the int8 backbone) once per start, in a worker
 * thread, under a PostgreSQL advisory lock keyed by the model cache's identity (util/cache-identity.ts): the
 * processes that share one cache (on one host or over a network file system) make each model once, the
 * others wait and then only hash-check the files. The lock is a session lock on a connection of its own, so
 * a holder killed at any moment releases it with its connection, and closing the process closes it too
 * (without waiting for the preparation). A request that comes first converts what it needs itself (the files
 * are written whole, so two makers never harm each other).
 */
import fp from 'fastify-plugin';
import pg from 'pg';
import { cacheIdentity } from '../util/cache-identity.js';
import { modelCacheDir } from '../vision/runtime/converted-model.js';

const LOCK_NAMESPACE = 7_301_201; // arbitrary, constant: the model-cache lock
const LOCK_RETRY_MS = 1000;

export const modelCachePlugin = fp(
  async (app, opts: { databaseUrl: string }) => {
    let closing = false;
    const client = new pg.Client({ connectionString: opts.databaseUrl });
    client.on('error', () => undefined); // a connection lost: the lock goes with it; the catch below reports
    const prepare = async () => {
      const cacheId = await cacheIdentity(modelCacheDir());
      if (closing) return;
      await client.connect();
      const lock = [LOCK_NAMESPACE, cacheId];
      // Tried now and then rather than waited for, so a closing process never hangs on it.
      while (!(await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', lock)).rows[0]!.ok) {
        if (closing) return;
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      }
      if (closing) return;
      const models = await app.inference.run('prepare-models', undefined, { priority: 'background' });
      app.log.info({ converted: models.filter((m) => m.converted).length, cached: models.filter((m) => !m.converted).length }, 'ONNX model cache ready');
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', lock);
    };
    void prepare().catch((err: unknown) => {
      if (!closing) app.log.error({ err }, 'converting models to ONNX failed');
    });
    app.addHook('onClose', async () => {
      closing = true;
      // Ending the connection gives the lock back; a preparation still running is abandoned with the pool.
      await client.end().catch(() => undefined);
    });
  },
  { name: 'model-cache', dependencies: ['inference'] },
);
